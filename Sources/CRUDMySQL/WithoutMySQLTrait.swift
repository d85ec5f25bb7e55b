#if !MySQL
/// Stands in for the MySQL driver in a build of CRUD without its `MySQL` trait, so that using the
/// driver says how to turn it on: the driver needs MariaDB Connector/C (`libmariadb-dev`), which the
/// SQLite and PostgreSQL drivers do not, so it is built only on request.
@available(*, unavailable, message: "CRUDMySQL is built only with CRUD's MySQL trait, which needs MariaDB Connector/C (Debian: apt-get install libmariadb-dev): depend on CRUD with .package(url: ..., from: ..., traits: [\"MySQL\"]), or build with --traits MySQL")
public final class MySQLDatabaseConfiguration {}
#endif
