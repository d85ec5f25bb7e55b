/// Finds the models among the parsed declarations of a whole target and works out their tables.
///
/// Columns are exactly the stored properties that synthesized `Codable` would encode, in declaration
/// order, renamed by `CodingKeys`. Every rule a model breaks becomes a diagnostic at the user's
/// declaration; declarations that are not models are never diagnosed.
struct ModelAnalyzer {
    struct Result {
        var models: [Model] = []
        var conformances: [ValueConformance] = []
        var diagnostics: [Diagnostic] = []
    }

    /// A declaration with where it came from.
    private struct Located {
        var declaration: TypeDeclaration
        var file: SourceFile
        /// Kind and modifiers of every enclosing declaration and of this one, outermost first.
        var modifierChain: [(kind: TypeDeclaration.Kind, modifiers: [String])]
        var qualifiedName: String
        var scope: [String] { declaration.enclosing }
    }

    private var types: [String: [Located]] = [:]
    private var extensions: [String: [Located]] = [:]
    private var typealiases: [String: String] = [:]
    private var order: [Located] = []
    private var result = Result()
    private var errorCount = 0

    static func analyze(_ files: [ParsedFile]) -> Result {
        var analyzer = ModelAnalyzer()
        for parsed in files {
            for alias in parsed.typealiases where analyzer.typealiases[alias.name] == nil {
                analyzer.typealiases[alias.name] = alias.type
            }
            for declaration in parsed.types {
                analyzer.collect(declaration, file: parsed.file, modifierChain: [])
            }
            for local in parsed.localModels {
                analyzer.error(parsed.file, local.offset, "model '\(local.name)' is declared inside a function, closure or top-level code, "
                    + "where the generated code cannot extend it; declare it at file scope or inside a type")
            }
        }
        analyzer.findModels()
        return analyzer.result
    }

    // MARK: - Collecting

    private mutating func collect(_ declaration: TypeDeclaration, file: SourceFile,
                                  modifierChain: [(kind: TypeDeclaration.Kind, modifiers: [String])]) {
        let chain = modifierChain + [(declaration.kind, declaration.modifiers)]
        let located = Located(declaration: declaration, file: file, modifierChain: chain,
                              qualifiedName: declaration.qualifiedName)
        if declaration.kind == .extension {
            extensions[declaration.qualifiedName, default: []].append(located)
        } else {
            types[declaration.qualifiedName, default: []].append(located)
        }
        order.append(located)
        let scope = declaration.enclosing + declaration.name.split(separator: ".").map(String.init)
        for alias in declaration.typealiases {
            let qualified = (scope + [alias.name]).joined(separator: ".")
            if typealiases[qualified] == nil { typealiases[qualified] = alias.type }
        }
        for nested in declaration.nestedTypes {
            collect(nested, file: file, modifierChain: chain)
        }
    }

    // MARK: - Lookup

    private static func lists(_ inheritance: [String], _ protocolName: String) -> Bool {
        inheritance.contains { entry in
            let bare = entry.split(separator: " ").last.map(String.init) ?? entry
            return bare == protocolName || bare.hasSuffix("." + protocolName)
        }
    }

    /// The qualified name a (possibly dotted) type name refers to from inside `scope`, searching the
    /// innermost scope first as Swift does; `nil` when the target declares no such type or alias.
    private func resolve(_ name: String, from scope: [String]) -> String? {
        for depth in stride(from: scope.count, through: 0, by: -1) {
            let candidate = (scope.prefix(depth) + [name]).joined(separator: ".")
            if types[candidate] != nil || typealiases[candidate] != nil { return candidate }
        }
        return nil
    }

    private func extensionsOf(_ qualifiedName: String) -> [Located] {
        extensions[qualifiedName] ?? []
    }

    private func conforms(_ qualifiedName: String, to protocolName: String) -> Bool {
        (types[qualifiedName] ?? []).contains { Self.lists($0.declaration.inheritance, protocolName) }
            || extensionsOf(qualifiedName).contains { Self.lists($0.declaration.inheritance, protocolName) }
    }

    /// The innermost enclosing type of `qualifiedName` that has generic parameters, if any.
    private func enclosingGenericType(of qualifiedName: String) -> String? {
        let parts = qualifiedName.split(separator: ".")
        for length in stride(from: parts.count - 1, through: 1, by: -1) {
            let enclosing = parts.prefix(length).joined(separator: ".")
            if types[enclosing]?.contains(where: { $0.declaration.isGeneric }) == true { return enclosing }
        }
        return nil
    }

    private func isModel(_ qualifiedName: String) -> Bool {
        guard let declaration = types[qualifiedName]?.first?.declaration, declaration.kind == .struct else { return false }
        return ModelProtocols.names.contains { conforms(qualifiedName, to: $0) }
    }

    // MARK: - Models

    private mutating func findModels() {
        var seen: Set<String> = []
        for located in order {
            let declaration = located.declaration
            guard ModelProtocols.names.contains(where: { Self.lists(declaration.inheritance, $0) }) else { continue }
            if declaration.kind == .extension {
                guard let target = resolve(declaration.name, from: []), let originals = types[target], !originals.isEmpty else {
                    error(located.file, declaration.offset,
                          "extension of '\(declaration.name)' adds CRUDModel, but this target declares no struct '\(declaration.name)'; "
                              + "models must be structs declared in the target that the generator reads")
                    continue
                }
                // A struct declared once per `#if` branch gets code for each branch, under its condition.
                for original in originals {
                    let key = target + "\u{0}" + (original.declaration.condition ?? "")
                    if seen.insert(key).inserted {
                        analyzeModel(original, conformance: located)
                    }
                }
            } else {
                let key = located.qualifiedName + "\u{0}" + (declaration.condition ?? "")
                if seen.insert(key).inserted {
                    analyzeModel(located, conformance: located)
                }
            }
        }
    }

    private mutating func analyzeModel(_ located: Located, conformance: Located) {
        let declaration = located.declaration
        let name = located.qualifiedName
        switch declaration.kind {
        case .struct:
            break
        case .class, .actor:
            return error(located.file, declaration.offset,
                         "'\(name)' is a \(declaration.kind.rawValue); CRUDModel works on structs, whose rows are plain values: declare '\(name)' as a struct")
        case .enum:
            return error(located.file, declaration.offset,
                         "'\(name)' is an enum; CRUDModel maps a struct's stored properties to columns: declare a struct, "
                             + "and to store an enum in a column give it a raw type and use it as a property type")
        case .protocol:
            return error(located.file, declaration.offset,
                         "protocol '\(name)' refines CRUDModel; the generator writes each model's code itself: mark the structs CRUDModel directly")
        case .extension:
            return
        }
        if declaration.isGeneric {
            return error(located.file, declaration.nameOffset,
                         "'\(name)' is generic; a model needs one fixed table layout: make a non-generic struct for each table")
        }
        if let outer = enclosingGenericType(of: name) {
            return error(located.file, declaration.nameOffset,
                         "'\(name)' is nested in generic type '\(outer)', so it is generic too; a model needs one fixed table layout: "
                             + "declare it outside '\(outer)'")
        }
        guard let access = accessPrefix(for: located) else { return }

        let allExtensions = extensionsOf(name)
        let codingKeys = findCodingKeys(located, extensions: allExtensions)
        var columns: [ModelColumn] = []
        var relations: [ModelRelation] = []
        var primaryKey: Int?
        var columnOwners: [String: String] = [:]
        let errorsBefore = errorCount
        let scope = located.scope + [declaration.name]

        // Synthesized `encode(to:)` writes keys in the order of the CodingKeys cases, and Perfect-CRUD
        // created its tables in that order: columns follow it (properties it leaves out come last,
        // for their diagnostics).
        var properties = declaration.properties
        if let codingKeys {
            let position = Dictionary(codingKeys.cases.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { first, _ in first })
            properties = properties.enumerated()
                .sorted { (position[$0.element.name] ?? Int.max, $0.offset) < (position[$1.element.name] ?? Int.max, $1.offset) }
                .map(\.element)
        }
        for property in properties {
            if property.isStatic || property.isComputed || property.isLazy { continue }
            if property.isLet && property.hasInitializer { continue }
            let file = located.file
            if property.isConditional {
                error(file, property.offset,
                      "stored property '\(property.name)' of model '\(name)' is inside #if; the table layout must not depend on build settings: "
                          + "declare the whole model once per #if branch instead")
                continue
            }
            if property.isTuplePattern {
                error(file, property.offset,
                      "'\(property.name)' binds a tuple; a column holds one value: declare one property per column")
                continue
            }
            var columnName = property.name
            if let codingKeys {
                guard let key = codingKeys.cases.first(where: { $0.name == property.name }) else {
                    let hasDefault = property.hasInitializer || (!property.isLet && property.type.map(Self.isOptionalText) == true)
                    if !hasDefault {
                        error(file, property.offset,
                              "property '\(property.name)' is not in CodingKeys and has no default value, so rows cannot initialize it: "
                                  + "add a case '\(property.name)' to CodingKeys or give the property a default value")
                    }
                    continue
                }
                columnName = key.rawValue ?? key.name
            }
            if let problem = accessProblem(property) {
                error(file, property.offset, problem)
                continue
            }
            guard let type = propertyType(property, in: file) else { continue }
            switch classify(type, scope: scope, model: name) {
            case let .column(swiftType, isOptional, enumNeedingConformance):
                if let owner = columnOwners[columnName] {
                    error(file, property.offset,
                          "properties '\(owner)' and '\(property.name)' of '\(name)' both map to column '\(columnName)': "
                              + "give one of them another name in CodingKeys")
                    continue
                }
                columnOwners[columnName] = property.name
                if property.name == "id" { primaryKey = columns.count }
                let location = file.location(of: property.offset)
                columns.append(ModelColumn(property: property.name, name: columnName, swiftType: swiftType, isOptional: isOptional,
                                           storage: columnStorage(type, scope: scope), line: location.line, column: location.column,
                                           renamedFrom: Self.renameHint(in: file, line: location.line)))
                if let enumName = enumNeedingConformance {
                    let conformance = ValueConformance(qualifiedName: enumName, condition: types[enumName]?.first?.declaration.condition)
                    if !result.conformances.contains(conformance) { result.conformances.append(conformance) }
                }
            case let .relation(target):
                relations.append(ModelRelation(property: property.name, target: target))
            case let .problem(message):
                error(file, property.typeOffset ?? property.offset, message)
            }
        }

        if let codingKeys {
            let propertyNames = Set(declaration.properties.map(\.name))
            for key in codingKeys.cases where !propertyNames.contains(key.name) {
                error(codingKeys.file, key.offset,
                      "CodingKeys case '\(key.name)' names no stored property of '\(name)': remove the case or rename it to match a property")
            }
        }
        if columns.isEmpty, errorCount == errorsBefore {
            error(located.file, declaration.offset,
                  "model '\(name)' has no columns; a table needs at least one stored property of a supported type (\(SupportedTypes.summary))")
        }
        let tableName = findTableName(located, extensions: allExtensions)
        let timestamps = findTimestamps(located, extensions: allExtensions, columns: columns)
        guard errorCount == errorsBefore, let tableName else { return }

        result.models.append(Model(
            qualifiedName: name, accessPrefix: access, tableName: tableName, columns: columns,
            primaryKey: primaryKey, relations: relations, timestamps: timestamps,
            memberwiseOrder: Self.memberwiseOrder(declaration, filled: columns.map(\.property) + relations.map(\.property)),
            condition: Self.joinConditions(declaration.condition,
                                           conformance.declaration.kind == .extension ? conformance.declaration.condition : nil),
            declaredIn: (located.file.path, located.file.location(of: declaration.offset).line),
            constraintsValue: staticValue("crudConstraints", located, extensions: allExtensions),
            indexesValue: staticValue("crudIndexes", located, extensions: allExtensions),
            neverReusesKeysValue: staticValue("crudNeverReusesKeys", located, extensions: allExtensions)))
    }

    /// The value of the static property `name` declared in the model or an extension of it.
    private func staticValue(_ name: String, _ located: Located, extensions: [Located]) -> DeclaredValue? {
        for holder in [located] + extensions {
            if let property = holder.declaration.properties.first(where: { $0.isStatic && $0.name == name }), let range = property.value {
                return DeclaredValue(file: holder.file, range: range)
            }
        }
        return nil
    }

    /// How a property of `type` is stored: a type the runtime stores itself, JSON, an enum by its raw
    /// type, or a `CRUDValue` by the `crudColumnType` it declares; `nil` when that takes running code.
    private func columnStorage(_ type: TypeSyntax, scope: [String]) -> DeclaredStorage? {
        var base = expandAliases(type, scope: scope, depth: 0)
        if case let .optional(wrapped) = base { base = wrapped }
        if SupportedTypes.isJSONWrapper(base) { return .known(.json) }
        if SupportedTypes.isBuiltin(base) { return ColumnStorage.builtin[base.rendered].map(DeclaredStorage.known) }
        guard case let .named(path, arguments) = base, arguments.isEmpty, let found = resolve(path.joined(separator: "."), from: scope) else {
            return nil
        }
        if conforms(found, to: "CRUDJSONValue") { return .known(.json) }
        if let declaration = types[found]?.first?.declaration, declaration.kind == .enum, let raw = declaration.inheritance.first,
           let storage = ColumnStorage.builtin[Self.bareName(raw)] {
            return .known(storage)
        }
        for holder in (types[found] ?? []) + extensionsOf(found) {
            if let property = holder.declaration.properties.first(where: { $0.isStatic && $0.name == "crudColumnType" }), let range = property.value {
                return .declared(DeclaredValue(file: holder.file, range: range))
            }
        }
        return nil
    }

    /// The name in a `// crud-migrations: renamed from "old"` comment on `line` or the line above.
    private static func renameHint(in file: SourceFile, line: Int) -> String? {
        let marker = "crud-migrations: renamed from \""
        for number in [line, line - 1] where number >= 1 {
            let text = file.line(number)
            guard let comment = text.firstRange(of: "//"), let found = text[comment.upperBound...].firstRange(of: marker) else { continue }
            let rest = text[found.upperBound...]
            guard let close = rest.firstIndex(of: "\"") else { continue }
            return String(rest[..<close])
        }
        return nil
    }

    /// Where the `createdAt` and `updatedAt` columns are when the model is `CRUDTimestamped`, or `nil`
    /// (with a diagnostic when one of them cannot hold the time of a write, or neither exists).
    private mutating func findTimestamps(_ located: Located, extensions: [Located], columns: [ModelColumn]) -> ModelTimestamps? {
        let name = located.qualifiedName
        guard let listing = ([located] + extensions).first(where: { Self.lists($0.declaration.inheritance, ModelProtocols.timestamped) }) else {
            return nil
        }
        var timestamps = ModelTimestamps()
        for (keyPath, property) in [(\ModelTimestamps.createdAt, "createdAt"), (\ModelTimestamps.updatedAt, "updatedAt")] {
            guard let index = columns.firstIndex(where: { $0.property == property }) else { continue }
            let declaration = located.declaration.properties.first { $0.name == property }
            let offset = declaration?.offset ?? located.declaration.offset
            guard ["Date", "Date?", "Foundation.Date", "Foundation.Date?"].contains(columns[index].swiftType) else {
                error(located.file, declaration?.typeOffset ?? offset,
                      "'\(property)' of \(ModelProtocols.timestamped) model '\(name)' is '\(columns[index].swiftType)'; CRUD writes the time of "
                          + "each insert and update there: declare it 'Date' or 'Date?'")
                continue
            }
            if declaration?.isLet == true {
                error(located.file, offset,
                      "'\(property)' of \(ModelProtocols.timestamped) model '\(name)' is a 'let'; CRUD sets it on each write: declare it 'var'")
                continue
            }
            timestamps[keyPath: keyPath] = index
        }
        if timestamps.createdAt == nil, timestamps.updatedAt == nil,
           !columns.contains(where: { $0.property == "createdAt" || $0.property == "updatedAt" }) {
            error(listing.file, listing.declaration.offset,
                  "'\(name)' is \(ModelProtocols.timestamped) but has no column 'createdAt' or 'updatedAt' for CRUD to fill: "
                      + "add 'var createdAt: Date?' and 'var updatedAt: Date?' (or one of them), or remove \(ModelProtocols.timestamped)")
        }
        return timestamps
    }

    /// The positions in `filled` in the order of the struct's synthesized memberwise initializer, or
    /// `nil` when Swift synthesizes none that the generated file can call with just them: the body
    /// declares an initializer (or a macro might), a stored property is private, lazy, wrapped,
    /// conditional or a tuple, a macro may add members, or a property left out has no default.
    private static func memberwiseOrder(_ declaration: TypeDeclaration, filled: [String]) -> [Int]? {
        if declaration.mayDeclareInitializer || declaration.attributes.contains(where: isCustomAttribute) { return nil }
        let position = Dictionary(filled.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        var order: [Int] = []
        // A `let` with a value is no parameter of the memberwise initializer, whatever its access.
        for property in declaration.properties where !property.isStatic && !property.isComputed && !(property.isLet && property.hasInitializer) {
            let hidden = property.modifiers.contains { $0.hasPrefix("private") || $0.hasPrefix("fileprivate") }
            if hidden || property.isLazy || property.isConditional || property.isTuplePattern
                || property.attributes.contains(where: isCustomAttribute) {
                return nil
            }
            if let filledAt = position[property.name] {
                order.append(filledAt)
            } else if !property.hasInitializer && (property.isLet || property.type.map(isOptionalText) != true) {
                return nil
            }
        }
        return order.count == filled.count ? order : nil
    }

    /// A property wrapper, global actor or attached macro: Swift's own attributes are lowercase.
    private static func isCustomAttribute(_ name: String) -> Bool {
        name.first?.isUppercase == true
    }

    private static func joinConditions(_ first: String?, _ second: String?) -> String? {
        switch (first, second) {
        case let (first?, second?): return first + " && " + second
        case let (first?, nil): return first
        case let (nil, second?): return second
        case (nil, nil): return nil
        }
    }

    private static func isOptionalText(_ type: String) -> Bool {
        if case .optional = TypeSyntax(parsing: type) { return true }
        return false
    }

    /// The access the generated members need, or `nil` (with a diagnostic) when generated code in
    /// another file could not see the model at all. An access modifier on an extension is the
    /// default for the members declared in it.
    private mutating func accessPrefix(for located: Located) -> String? {
        let levels = ["private": 0, "fileprivate": 0, "internal": 1, "package": 2, "public": 3, "open": 3]
        var effective = 3
        var extensionDefault: Int?
        for (kind, modifiers) in located.modifierChain {
            let explicit = modifiers.compactMap { levels[$0] }.min()
            if kind == .extension {
                extensionDefault = explicit
                continue
            }
            let level = explicit ?? extensionDefault ?? 1
            extensionDefault = nil
            if level == 0 {
                error(located.file, located.declaration.offset,
                      "model '\(located.qualifiedName)' is private to its file (itself or an enclosing type), so the generated file cannot see it: make it internal or wider")
                return nil
            }
            effective = min(effective, level)
        }
        switch effective {
        case 3: return "public "
        case 2: return "package "
        default: return ""
        }
    }

    private func accessProblem(_ property: PropertyDeclaration) -> String? {
        if let custom = property.attributes.first(where: Self.isCustomAttribute) {
            return "column '\(property.name)' has the custom attribute @\(custom) (a property wrapper or global actor); its storage is private "
                + "to the declaring file, so the generated row reader cannot set it: store the plain value and apply @\(custom)'s logic "
                + "in a computed property"
        }
        if property.modifiers.contains("private") || property.modifiers.contains("fileprivate") {
            return "property '\(property.name)' is \(property.modifiers.contains("private") ? "private" : "fileprivate"), "
                + "so the generated row reader in another file cannot set it: make it internal (or wider)"
        }
        if let hidden = property.modifiers.first(where: { $0.hasSuffix("(set)") && ($0.hasPrefix("private") || $0.hasPrefix("fileprivate")) }) {
            return "property '\(property.name)' is \(hidden), so the generated row reader in another file cannot set it: "
                + "declare it 'let', or drop '\(hidden)'"
        }
        return nil
    }

    /// The property's type, written or inferred from a literal initializer.
    private mutating func propertyType(_ property: PropertyDeclaration, in file: SourceFile) -> TypeSyntax? {
        if let written = property.type { return TypeSyntax(parsing: written) }
        switch property.literal {
        case .integer?: return .named(["Int"], arguments: [])
        case .float?: return .named(["Double"], arguments: [])
        case .bool?: return .named(["Bool"], arguments: [])
        case .string?, .complexString?: return .named(["String"], arguments: [])
        case nil:
            error(file, property.offset,
                  "the generator cannot infer the type of '\(property.name)' from its initializer: write the type, as in 'var \(property.name): Int = …'")
            return nil
        }
    }

    // MARK: - Property types

    private enum Classification {
        /// A column; `enumNeedingConformance` names an enum that needs the generated `CRUDValue` conformance.
        case column(swiftType: String, isOptional: Bool, enumNeedingConformance: String?)
        case relation(target: String)
        case problem(String)
    }

    private func classify(_ type: TypeSyntax, scope: [String], model: String) -> Classification {
        let resolved = expandAliases(type, scope: scope, depth: 0)
        switch resolved {
        case let .optional(.array(element)):
            if SupportedTypes.isBuiltin(.array(element)) { break }
            if let target = modelName(element, scope: scope, model: model) { return .relation(target: target) }
            if case let .named(path, _) = element, let found = resolve(path.joined(separator: "."), from: scope), types[found] != nil {
                return .problem("'\(type.rendered)' looks like a relation, but '\(found)' is not a CRUDModel: mark '\(found)' CRUDModel "
                    + "(a struct with its own table) so joins can fill this property")
            }
            return .problem("CRUD cannot store '\(type.rendered)': a column holds one value; an optional array is a relation only when its element is a CRUDModel"
                + "; to store the array as JSON, write 'CRUDJSON<[\(element.rendered)]>?'")
        case let .array(element):
            if SupportedTypes.isBuiltin(resolved) { break }
            if let target = modelName(element, scope: scope, model: model) {
                return .problem("relation '\(type.rendered)' must be optional: write '[\(target)]?', which is nil until a join fills it")
            }
        default:
            break
        }
        var base = resolved
        var isOptional = false
        if case let .optional(wrapped) = resolved {
            base = wrapped
            isOptional = true
        }
        if case .optional = base {
            return .problem("CRUD cannot store the double optional '\(type.rendered)': a column is either NULL or a value; use a single optional")
        }
        let builtinType = isOptional ? TypeSyntax.optional(base).rendered : base.rendered
        if SupportedTypes.isBuiltin(base) || SupportedTypes.isJSONWrapper(base) {
            return .column(swiftType: builtinType, isOptional: isOptional, enumNeedingConformance: nil)
        }
        if case let .named(path, arguments) = base, arguments.isEmpty,
           let found = resolve(path.joined(separator: "."), from: scope) {
            // Generated code lives in an extension, which does not see the model's enclosing types
            // lexically: name the type in full.
            let swiftType = found + (isOptional ? "?" : "")
            if isModel(found) || found == model {
                return .problem("'\(found)' is a model; one model is not stored inside another's row: relate them with a key column "
                    + "and a '[\(found)]?' property filled by a join")
            }
            if conforms(found, to: "CRUDValue") || conforms(found, to: "CRUDJSONValue") {
                return .column(swiftType: swiftType, isOptional: isOptional, enumNeedingConformance: nil)
            }
            if let declaration = types[found]?.first?.declaration, declaration.kind == .enum,
               let raw = declaration.inheritance.first, SupportedTypes.rawValues.contains(Self.bareName(raw)) {
                return .column(swiftType: swiftType, isOptional: isOptional, enumNeedingConformance: found)
            }
        } else if case let .named(path, arguments) = base, arguments.isEmpty, path.count == 1,
                  ["Int128", "UInt128"].contains(path[0]) {
            return .problem("CRUD cannot store '\(path[0])': databases keep at most 64-bit integers; use Int64/UInt64, or String for larger values")
        }
        return .problem("CRUD cannot store '\(type.rendered)'; supported column types are \(SupportedTypes.summary)"
            + jsonHint(base, scope: scope))
    }

    /// How to store `type` as JSON instead, when it looks like JSON would do: a collection, or a
    /// `Codable` type of the target.
    private func jsonHint(_ type: TypeSyntax, scope: [String]) -> String {
        switch type {
        case .array, .dictionary, .named(["Set"], _):
            return "; to store it as JSON, write 'CRUDJSON<\(type.rendered)>'"
        case let .named(path, arguments) where arguments.isEmpty:
            guard let found = resolve(path.joined(separator: "."), from: scope),
                  conforms(found, to: "Codable") || (conforms(found, to: "Encodable") && conforms(found, to: "Decodable")) else { return "" }
            return "; to store it as JSON, mark it: 'extension \(found): CRUDJSONValue {}'"
        default:
            return ""
        }
    }

    private static func bareName(_ name: String) -> String {
        name.hasPrefix("Swift.") ? String(name.dropFirst(6)) : name
    }

    /// The qualified model name an array element refers to, if it is a model (`Self` included).
    private func modelName(_ element: TypeSyntax, scope: [String], model: String) -> String? {
        guard case let .named(path, arguments) = element, arguments.isEmpty else { return nil }
        if path == ["Self"] { return model }
        guard let found = resolve(path.joined(separator: "."), from: scope) else { return nil }
        return isModel(found) ? found : nil
    }

    /// Replaces names of the target's typealiases by what they stand for.
    private func expandAliases(_ type: TypeSyntax, scope: [String], depth: Int) -> TypeSyntax {
        guard depth < 16 else { return type }
        switch type {
        case let .named(path, arguments):
            if arguments.isEmpty, let found = resolve(path.joined(separator: "."), from: scope),
               types[found] == nil, let aliased = typealiases[found] {
                return expandAliases(TypeSyntax(parsing: aliased), scope: scope, depth: depth + 1)
            }
            return type
        case let .optional(wrapped):
            return .optional(expandAliases(wrapped, scope: scope, depth: depth + 1))
        case let .array(element):
            return .array(expandAliases(element, scope: scope, depth: depth + 1))
        case .dictionary, .other:
            return type
        }
    }

    // MARK: - CodingKeys and tableName

    private struct CodingKeys {
        var cases: [EnumCaseDeclaration]
        var file: SourceFile
    }

    private mutating func findCodingKeys(_ located: Located, extensions: [Located]) -> CodingKeys? {
        let candidates = [located] + extensions
        for holder in candidates {
            guard let keys = holder.declaration.nestedTypes.first(where: { $0.name == "CodingKeys" && $0.kind == .enum }) else { continue }
            for key in keys.enumCases where key.isConditional {
                error(holder.file, key.offset,
                      "CodingKeys case '\(key.name)' is inside #if; the table layout must not depend on build settings: declare the whole model once per #if branch")
            }
            return CodingKeys(cases: keys.enumCases, file: holder.file)
        }
        return nil
    }

    private mutating func findTableName(_ located: Located, extensions: [Located]) -> String? {
        let name = located.qualifiedName
        let simpleName = located.declaration.name
        let providesName = conforms(name, to: "TableNameProvider")
        for holder in [located] + extensions {
            guard let property = holder.declaration.properties.first(where: { $0.name == "tableName" && $0.isStatic }) else { continue }
            guard case let .string(literal)? = property.literal, !property.isComputed else {
                error(holder.file, property.offset,
                      "tableName of '\(name)' must be a plain string literal, as in 'static let tableName = \"people\"', "
                          + "so the generator can read the table name without running code")
                return nil
            }
            if !providesName {
                warning(holder.file, property.offset,
                        "'\(name)' declares tableName but does not conform to TableNameProvider, so its table is named '\(simpleName)': "
                            + "add TableNameProvider to use '\(literal)'")
                return simpleName
            }
            return literal
        }
        if providesName {
            error(located.file, located.declaration.offset,
                  "'\(name)' conforms to TableNameProvider but declares no 'static let tableName = \"…\"' in this target: add one")
            return nil
        }
        return simpleName
    }

    // MARK: - Diagnostics

    private mutating func error(_ file: SourceFile, _ offset: Int, _ message: String) {
        errorCount += 1
        report(.error, file, offset, message)
    }

    private mutating func warning(_ file: SourceFile, _ offset: Int, _ message: String) {
        report(.warning, file, offset, message)
    }

    private mutating func report(_ severity: Diagnostic.Severity, _ file: SourceFile, _ offset: Int, _ message: String) {
        let (line, column) = file.location(of: offset)
        result.diagnostics.append(Diagnostic(severity: severity, path: file.path, line: line, column: column, message: message))
    }
}
