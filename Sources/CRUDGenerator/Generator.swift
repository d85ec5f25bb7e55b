/// One Swift file given to the generator.
public struct GeneratorInput: Sendable {
    /// The file; its path is what diagnostics print.
    public var file: SourceFile
    /// The name the generated file's header lists for it (a path relative to the target, say).
    public var name: String

    public init(file: SourceFile, name: String) {
        self.file = file
        self.name = name
    }
}

/// What one run of the generator produced.
public struct GeneratorOutput: Sendable {
    /// The generated Swift source, or `nil` when a diagnostic is an error.
    public var source: String?
    /// Errors and warnings, in input order.
    public var diagnostics: [Diagnostic]
    /// The qualified names of the models found, in output order.
    public var modelNames: [String]
}

/// Turns the Swift files of one target into the code of its models: the library behind `crud-gen`.
public enum Generator {
    /// Reads every input, finds the `CRUDModel` structs and writes their code. Inputs appear in the
    /// output in the order given; pass them sorted for stable output.
    public static func generate(_ inputs: [GeneratorInput]) -> GeneratorOutput {
        let parsed = inputs.map { DeclarationParser.parse($0.file) }
        let analysis = ModelAnalyzer.analyze(parsed)
        let hasErrors = analysis.diagnostics.contains { $0.severity == .error }
        let source = hasErrors ? nil : ModelEmitter.emit(
            models: analysis.models,
            conformances: analysis.conformances.sorted { $0.qualifiedName < $1.qualifiedName },
            imports: parsed.flatMap(\.imports),
            inputNames: inputs.map(\.name),
            nameOfPath: Dictionary(inputs.map { ($0.file.path, $0.name) }, uniquingKeysWith: { first, _ in first }))
        // A target without frozen steps is never compared: most builds stop at this cheap look.
        let hasSteps = parsed.contains { file in file.types.contains { $0.properties.contains { SnapshotReader.isStep($0, in: file.file) } } }
        let warnings = hasErrors || !hasSteps ? [] : migrationWarnings(MigrationState(parsed: parsed, analysis: analysis))
        return GeneratorOutput(source: source, diagnostics: analysis.diagnostics + warnings,
                               modelNames: analysis.models.map(\.qualifiedName))
    }

    /// Where the target has frozen migration steps: a warning at each model change the last step
    /// does not have, and what keeps the models from being compared with it, as warnings too (the
    /// compiler reports a step that does not compile). Nothing for a target without steps.
    private static func migrationWarnings(_ state: MigrationState) -> [Diagnostic] {
        let problems = (state.models.diagnostics + state.diagnostics.filter { $0.severity == .error }).map { diagnostic in
            var warning = diagnostic
            warning.severity = .warning
            return warning
        }
        return problems.isEmpty ? state.missingMigrationWarnings : problems
    }
}

/// What `crud-migrations generate` writes.
public struct MigrationOutput: Sendable {
    /// The files of the migrations folder to write, by name: the new step and the list of steps;
    /// empty when the models match the last step.
    public var files: [String: String]
    /// The diagram of the models' schema: Markdown with a Mermaid `erDiagram` that shows the SVG
    /// picture `diagramSVG` first.
    public var diagram: String
    public var diagramSVG: String
    /// The new step's name, or `nil` when there is none.
    public var stepName: String?
    /// Errors and warnings; with an error, `files` is empty.
    public var diagnostics: [Diagnostic]
}

extension Generator {
    /// The next frozen migration step of the models among `inputs`: the changes from the schema of
    /// the last step found among them (none for a first step) to the models' schema. `name` names the
    /// step after its number; `namespace` is the type the steps extend, unless earlier steps name one;
    /// `diagramImage` is the file name the diagram's picture is written under, beside it.
    public static func generateMigration(_ inputs: [GeneratorInput], name: String, namespace: String,
                                         diagramImage: String = "Schema.svg") -> MigrationOutput {
        let parsed = inputs.map { DeclarationParser.parse($0.file) }
        let state = MigrationState(parsed: parsed, analysis: ModelAnalyzer.analyze(parsed))
        var diagnostics = state.diagnostics
        let diagram = MigrationEmitter.diagram(state.models.snapshot, relations: state.relations, title: "Schema", image: diagramImage)
        let picture = MigrationEmitter.diagramSVG(state.models.snapshot, relations: state.relations)
        guard !diagnostics.contains(where: { $0.severity == .error }) else {
            return MigrationOutput(files: [:], diagram: diagram, diagramSVG: picture, stepName: nil, diagnostics: diagnostics)
        }
        let diff = state.diff
        for (table, message) in diff.unsupported {
            diagnostics.append(state.diagnostic(.error, at: table, "'\(table)': \(message)"))
        }
        guard diagnostics.allSatisfy({ $0.severity != .error }), !diff.changes.isEmpty else {
            return MigrationOutput(files: [:], diagram: diagram, diagramSVG: picture, stepName: nil, diagnostics: diagnostics)
        }
        let number = (state.steps.last?.number ?? 0) + 1
        let digits = String(number)
        let padded = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        let stepName = padded + " " + name
        let property = "migration" + padded
        let namespace = state.steps.first?.namespace ?? namespace
        let files = [
            "Migration\(padded).swift": MigrationEmitter.step(diff, schema: state.models.snapshot, name: stepName, property: property, namespace: namespace),
            "\(namespace).swift": MigrationEmitter.history(state.steps.map(\.property) + [property], namespace: namespace),
        ]
        return MigrationOutput(files: files, diagram: diagram, diagramSVG: picture, stepName: stepName, diagnostics: diagnostics)
    }
}

/// The models' schema, the frozen steps and what differs between them: what the build warns about
/// and what `generateMigration` writes.
struct MigrationState {
    let models: ModelSchema
    let steps: [MigrationStep]
    let relations: [(table: String, target: String, property: String)]
    let diagnostics: [Diagnostic]
    let diff: SchemaDiff

    init(parsed: [ParsedFile], analysis: ModelAnalyzer.Result) {
        models = ModelSchema(analysis.models)
        let found = SnapshotReader.steps(in: parsed)
        steps = found.steps
        let tableOf = Dictionary(analysis.models.map { ($0.qualifiedName, $0.tableName) }, uniquingKeysWith: { first, _ in first })
        relations = analysis.models.flatMap { model in
            model.relations.compactMap { relation in tableOf[relation.target].map { (model.tableName, $0, relation.property) } }
        }
        diagnostics = analysis.diagnostics + models.diagnostics + found.diagnostics
        var renames: [String: [String: String]] = [:]
        for model in analysis.models {
            for column in model.columns {
                if let old = column.renamedFrom { renames[model.tableName, default: [:]][column.name] = old }
            }
        }
        diff = SchemaDiff(from: found.steps.last?.schema ?? SchemaSnapshot(tables: []), to: models.snapshot, renames: renames)
    }

    /// A diagnostic at the model of `table`, or at the last step when no model has it.
    func diagnostic(_ severity: Diagnostic.Severity, at table: String, column: String? = nil, _ message: String) -> Diagnostic {
        if let model = models.models[table] {
            let declared = column.flatMap { name in model.columns.first { $0.name == name } }
            return Diagnostic(severity: severity, path: model.declaredIn.path, line: declared?.line ?? model.declaredIn.line,
                              column: declared?.column ?? 1, message: message)
        }
        let step = steps.last
        let location = step.map { $0.file.location(of: $0.offset) } ?? (line: 1, column: 1)
        return Diagnostic(severity: severity, path: step?.file.path ?? "", line: location.line, column: location.column, message: message)
    }

    /// One warning per change the models made since the last step, at the changed model's line; none
    /// when the target has no step yet.
    var missingMigrationWarnings: [Diagnostic] {
        guard let last = steps.last else { return [] }
        let advice = "with no migration; run `swift package --allow-writing-to-package-directory crud-migrations generate <name>` "
            + "(the last step is \"\(last.name)\")"
        return diff.changes.map { change in
            switch change {
            case let .createTable(table):
                diagnostic(.warning, at: table.name, "'\(table.name)' is a new table \(advice)")
            case let .dropTable(table):
                diagnostic(.warning, at: table, "the table '\(table)' of the last step has no model any more \(advice)")
            case let .addColumn(column, table):
                diagnostic(.warning, at: table, column: column.name, "'\(table)' gained the column '\(column.name)' \(advice)")
            case let .dropColumn(column, table):
                diagnostic(.warning, at: table, "'\(table)' lost the column '\(column)' \(advice)")
            case let .renameColumn(old, new, table):
                diagnostic(.warning, at: table, column: new, "'\(table).\(old)' was renamed to '\(new)' \(advice)")
            case let .alterColumn(from, to, table):
                diagnostic(.warning, at: table, column: to.name, "'\(table).\(to.name)' changed from \(from.type)\(from.isNullable ? "?" : "") "
                    + "to \(to.type)\(to.isNullable ? "?" : "") \(advice)")
            case let .addIndex(index, table):
                diagnostic(.warning, at: table, "'\(table)' gained the index '\(index.name)' \(advice)")
            case let .dropIndex(index, table):
                diagnostic(.warning, at: table, "'\(table)' lost the index '\(index.name)' \(advice)")
            case let .addConstraint(constraint, table):
                diagnostic(.warning, at: table, "'\(table)' gained the constraint '\(constraint.name)' \(advice)")
            case let .dropConstraint(constraint, table):
                diagnostic(.warning, at: table, "'\(table)' lost the constraint '\(constraint.name)' \(advice)")
            case let .setNeverReusesKeys(never, table):
                diagnostic(.warning, at: table, "'\(table)' \(never ? "never reuses keys now" : "may reuse keys now") \(advice)")
            }
        }
    }
}
