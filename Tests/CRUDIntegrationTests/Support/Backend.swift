import CRUD
import CRUDSQLite
import Foundation

/// A database the shared integration tests run against. Each test gets a fresh, empty database.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite

    var testDescription: String { rawValue }

    /// Every backend; the shared tests take it as their argument list.
    static let all = allCases

    /// A new empty database.
    func open() throws -> any DatabaseConfigurationProtocol {
        Self.quietLogs
        switch self {
        case .sqlite:
            return try SQLiteDatabaseConfiguration(Self.temporaryFile("sqlite"))
        }
    }

    /// Query logs would drown the test output; tests that look at logging set their own.
    private static let quietLogs: Void = {
        CRUDLogging.queryLogDestinations = []
        CRUDLogging.errorLogDestinations = []
    }()

    static let directory: URL = {
        let directory = FileManager.default.temporaryDirectory.appending(path: "crud-integration-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }()

    static func temporaryFile(_ suffix: String) -> String {
        directory.appending(path: "\(UUID().uuidString).\(suffix)").path
    }
}

import Testing
