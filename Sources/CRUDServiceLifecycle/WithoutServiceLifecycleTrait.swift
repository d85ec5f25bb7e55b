#if !ServiceLifecycle
/// Stands in for `DatabaseService` in a build of CRUD without its `ServiceLifecycle` trait, so that
/// using it says how to turn it on: the trait keeps swift-service-lifecycle out of the packages
/// that do not use it.
@available(*, unavailable, message: "CRUDServiceLifecycle is built only with CRUD's ServiceLifecycle trait: depend on CRUD with .package(url: ..., from: ..., traits: [\"ServiceLifecycle\"]), or build with --traits ServiceLifecycle")
public struct DatabaseService {}
#endif
