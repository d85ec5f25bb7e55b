import CRUD
import Foundation

@propertyWrapper
struct Trimmed: Equatable {
    private var value: String
    var wrappedValue: String {
        get { value }
        set { value = newValue.trimmingCharacters(in: .whitespaces) }
    }

    init(wrappedValue: String) {
        value = wrappedValue.trimmingCharacters(in: .whitespaces)
    }
}

struct Decorated: CRUDModel, Equatable {
    enum CodingKeys: String, CodingKey {
        case id, `default`, naïveCafé = "naive_cafe", 日本語, title, observed, legacy, `class` = "order"
    }

    let id: Int
    let `default`: Bool
    var naïveCafé: String
    var 日本語: String?
    var title: String
    var observed: Int = 0 {
        didSet { print("changed") }
    }
    @available(swift, introduced: 5.0, message: "an attribute with arguments on a column")
    var legacy: String?
    var `class`: Int

    // Not columns:
    static let shared = 1
    var computed: Int { id * 2 }
    var alsoComputed: Int {
        get { id }
        set { _ = newValue }
    }
    lazy var cache: [Int] = []
    let constant = "fixed"
    var omittedWithDefault: Int = 7
    var omittedOptional: String?
    @Trimmed var scratch: String = "  left out of CodingKeys, so not a column  "
}

/// `var a, b: T` declares two columns of the same type.
struct SharedType: CRUDModel {
    let id: Int
    var left, right: Double
    var x = 1, y = 2.5, flag = true, label = "text"
}
