import Foundation

/// A model whose `createdAt` and `updatedAt` CRUD sets itself, from the clock of the process that
/// writes, so that they mean the same on every database:
///
///     struct Todo: CRUDModel, CRUDTimestamped {
///         var id: Int?
///         var title: String
///         var createdAt: Date?
///         var updatedAt: Date?
///     }
///
/// Every insert (`insert`, `returning(insert:)`, an upsert's new rows, a repository's `create`)
/// writes the time of the call to both; every update (`update`, with or without key lists, an
/// upsert's conflicting rows, a repository's `update`) writes it to `updatedAt` and leaves
/// `createdAt` as stored. The library writes them whatever `setKeys:` or `ignoreKeys:` say, and
/// the values on the instance you pass are not used.
///
/// The generator recognizes the conformance, in the declaration or in an extension: the model needs
/// a `var createdAt`, a `var updatedAt` or both, of type `Date` or `Date?` (rename their columns
/// with `CodingKeys`, as `created_at`). It reports a model without them, or with one of another
/// type, at the declaration.
public protocol CRUDTimestamped: CRUDModel {}

/// The positions of a timestamped model's `createdAt` and `updatedAt` columns in its table, as the
/// generator writes them.
public struct CRUDTimestampColumns: Sendable {
    /// The position of `createdAt` in `crudSchema.columns`, if the model has it.
    public let createdAt: Int?
    /// The position of `updatedAt` in `crudSchema.columns`, if the model has it.
    public let updatedAt: Int?

    /// The positions the generated `crudTimestamps` names.
    @_spi(Generated) @inlinable
    public init(createdAt: Int?, updatedAt: Int?) {
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

// The defaults are not SPI: the conformance of a model is checked in its own file, which imports
// CRUD plainly.
extension CRUDModel {
    /// `nil`: the model has no timestamps. The generator implements it for `CRUDTimestamped` models.
    public static var crudTimestamps: CRUDTimestampColumns? { nil }

    /// Nothing: the model has no timestamps. The generator implements it for `CRUDTimestamped` models.
    public mutating func crudStamp(_ now: Date, keepingCreatedAtOf stored: Self?) {}

    // The helpers below are not inlinable, as SPI cannot be; they run once a write, not once a row.

    /// The columns a write of `kind` sets, given those the caller named (every column when `nil`):
    /// with the timestamps an insert sets both, an update `updatedAt` and never `createdAt`.
    @usableFromInline
    static func crudColumns(stamping columns: [Int]?, for kind: CRUDChangeKind) -> [Int]? {
        guard let stamps = crudTimestamps else { return columns }
        var stamped = Set(columns ?? Array(crudSchema.columns.indices))
        switch kind {
        case .insert:
            guard columns != nil else { return nil }
            if let created = stamps.createdAt { stamped.insert(created) }
        case .update:
            if let created = stamps.createdAt { stamped.remove(created) }
        case .delete:
            return columns
        }
        if let updated = stamps.updatedAt { stamped.insert(updated) }
        return stamped.sorted()
    }

    /// `self` as an update stores it: `updatedAt` now, `createdAt` `stored`'s (an update statement
    /// leaves the stored one as it is, so by default this instance's, which it does not write).
    func crudStampedForUpdate(keepingCreatedAtOf stored: Self? = nil) -> Self {
        guard Self.crudTimestamps != nil else { return self }
        var stamped = self
        stamped.crudStamp(Date(), keepingCreatedAtOf: stored ?? self)
        return stamped
    }

    /// `instances` as an insert stores them, all stamped with one time.
    @usableFromInline
    static func crudStampedForInsert(_ instances: [Self]) -> [Self] {
        guard crudTimestamps != nil else { return instances }
        let now = Date()
        return instances.map { instance in
            var stamped = instance
            stamped.crudStamp(now, keepingCreatedAtOf: nil)
            return stamped
        }
    }
}
