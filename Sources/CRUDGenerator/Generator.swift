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
        return GeneratorOutput(source: source, diagnostics: analysis.diagnostics, modelNames: analysis.models.map(\.qualifiedName))
    }
}
