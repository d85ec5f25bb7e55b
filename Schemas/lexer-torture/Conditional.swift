import CRUD

// The same model declared once per branch: the generated code follows the same conditions.
#if os(Linux)
struct PlatformNote: CRUDModel {
    let id: Int
    var linuxText: String
}
#elseif os(macOS) || os(iOS)
struct PlatformNote: CRUDModel {
    let id: Int
    var appleText: String
}
#else
struct PlatformNote: CRUDModel {
    let id: Int
}
#endif

#if DEBUG && CRUD_UNDEFINED_FLAG
struct NeverCompiled: CRUDModel {
    let id: Int
}
#endif

struct Conditional: CRUDModel {
    let id: Int
    var value: Int
    #if DEBUG
    var debugDescription: String { "Conditional(\(id))" } // computed: allowed inside #if
    func dump() {}
    #endif
}
