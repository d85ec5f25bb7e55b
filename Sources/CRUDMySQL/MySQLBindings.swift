import CMariaDB
import Foundation

/// The `MYSQL_BIND` array of a statement's parameters or of its result columns, with the memory
/// each bind points at: Connector/C keeps those pointers between calls, so the memory is
/// allocated here, once, and lives as long as the statement.
final class MySQLBindings {
    /// How a result column is read.
    enum Kind {
        case integer, double, decimal, text, bytes, time
    }

    let count: Int
    let binds: UnsafeMutablePointer<MYSQL_BIND>
    /// A fixed slot per bind, wide enough for an `Int64`, a `Double` or a `MYSQL_TIME`.
    private let slots: UnsafeMutableRawPointer
    private static let slotSize = max(16, MemoryLayout<MYSQL_TIME>.stride)
    private let lengths: UnsafeMutablePointer<UInt>
    private let nulls: UnsafeMutablePointer<my_bool>
    private let errors: UnsafeMutablePointer<my_bool>
    /// Buffers for text and bytes, grown as needed; `nil` where the bind uses its slot.
    private var buffers: [UnsafeMutableRawPointer?]
    private var capacities: [Int]
    private var kinds: [Kind]
    private var isSet: [Bool]

    init(count: Int) {
        self.count = count
        binds = .allocate(capacity: max(count, 1))
        binds.initialize(repeating: MYSQL_BIND(), count: max(count, 1))
        slots = .allocate(byteCount: max(count, 1) * Self.slotSize, alignment: 16)
        lengths = .allocate(capacity: max(count, 1))
        lengths.initialize(repeating: 0, count: max(count, 1))
        nulls = .allocate(capacity: max(count, 1))
        nulls.initialize(repeating: 0, count: max(count, 1))
        errors = .allocate(capacity: max(count, 1))
        errors.initialize(repeating: 0, count: max(count, 1))
        buffers = Array(repeating: nil, count: count)
        capacities = Array(repeating: 0, count: count)
        kinds = Array(repeating: .integer, count: count)
        isSet = Array(repeating: false, count: count)
    }

    deinit {
        buffers.forEach { $0?.deallocate() }
        binds.deallocate()
        slots.deallocate()
        lengths.deallocate()
        nulls.deallocate()
        errors.deallocate()
    }

    private func slot(_ index: Int) -> UnsafeMutableRawPointer {
        slots + index * Self.slotSize
    }

    // MARK: - Parameters

    /// The first parameter no value was bound to.
    var firstUnset: Int? {
        isSet.firstIndex(of: false)
    }

    func clearParameters() {
        for index in 0 ..< count { isSet[index] = false }
    }

    /// Binds a fixed-size value that `write` stores in the slot, returning its length.
    func set(_ index: Int, type: enum_field_types, _ write: (UnsafeMutableRawPointer) -> UInt) {
        let length = write(slot(index))
        binds[index].buffer_type = type
        binds[index].buffer = slot(index)
        binds[index].buffer_length = length
        binds[index].is_unsigned = 0
        binds[index].length = nil
        binds[index].is_null = nil
        isSet[index] = true
    }

    /// Binds text or bytes, copied into the parameter's own buffer.
    func setBytes(_ index: Int, type: enum_field_types, _ bytes: UnsafeRawBufferPointer) {
        let buffer = ensure(index, capacity: bytes.count)
        if let base = bytes.baseAddress, bytes.count > 0 { buffer.copyMemory(from: base, byteCount: bytes.count) }
        binds[index].buffer_type = type
        binds[index].buffer = buffer
        binds[index].buffer_length = UInt(bytes.count)
        binds[index].length = nil
        binds[index].is_null = nil
        isSet[index] = true
    }

    private func ensure(_ index: Int, capacity: Int) -> UnsafeMutableRawPointer {
        if let buffer = buffers[index], capacities[index] >= capacity { return buffer }
        buffers[index]?.deallocate()
        let size = max(capacity, 64)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        buffers[index] = buffer
        capacities[index] = size
        return buffer
    }

    // MARK: - Results

    /// Sets up column `index` to receive `field`'s values in the type they are read as.
    func prepareResult(_ index: Int, for field: MYSQL_FIELD) {
        let kind = Self.kind(of: field)
        kinds[index] = kind
        binds[index].length = lengths + index
        binds[index].is_null = nulls + index
        binds[index].error = errors + index
        switch kind {
        case .integer:
            binds[index].buffer_type = MYSQL_TYPE_LONGLONG
            binds[index].is_unsigned = field.flags & UInt32(UNSIGNED_FLAG) != 0 ? 1 : 0
            binds[index].buffer = slot(index)
            binds[index].buffer_length = 8
        case .double:
            binds[index].buffer_type = MYSQL_TYPE_DOUBLE
            binds[index].buffer = slot(index)
            binds[index].buffer_length = 8
        case .time:
            binds[index].buffer_type = MYSQL_TYPE_DATETIME
            binds[index].buffer = slot(index)
            binds[index].buffer_length = UInt(MemoryLayout<MYSQL_TIME>.size)
        case .text, .bytes, .decimal:
            binds[index].buffer_type = kind == .bytes ? MYSQL_TYPE_BLOB : MYSQL_TYPE_STRING
            binds[index].buffer = ensure(index, capacity: 256)
            binds[index].buffer_length = UInt(capacities[index])
        }
    }

    func needsLargerBuffer(_ index: Int) -> Bool {
        buffers[index] != nil && nulls[index] == 0 && Int(lengths[index]) > capacities[index]
    }

    /// Makes column `index`'s buffer hold its current value's length.
    func grow(_ index: Int) {
        let needed = Int(lengths[index])
        buffers[index]?.deallocate()
        buffers[index] = nil
        let buffer = ensure(index, capacity: max(needed, capacities[index] * 2))
        binds[index].buffer = buffer
        binds[index].buffer_length = UInt(capacities[index])
    }

    func kind(_ index: Int) -> Kind { kinds[index] }
    func isNull(_ index: Int) -> Bool { nulls[index] != 0 }
    func isUnsigned(_ index: Int) -> Bool { binds[index].is_unsigned != 0 }
    func integer(_ index: Int) -> Int64 { slot(index).load(as: Int64.self) }
    func double(_ index: Int) -> Double { slot(index).load(as: Double.self) }
    func time(_ index: Int) -> MYSQL_TIME { slot(index).load(as: MYSQL_TIME.self) }

    func bytes(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: buffers[index], count: Swift.min(Int(lengths[index]), capacities[index]))
    }

    func text(_ index: Int) -> String {
        String(decoding: bytes(index), as: UTF8.self)
    }

    /// The binary charset's number: text columns of it hold bytes.
    private static let binaryCharset: UInt32 = 63

    private static func kind(of field: MYSQL_FIELD) -> Kind {
        switch field.type {
        case MYSQL_TYPE_TINY, MYSQL_TYPE_SHORT, MYSQL_TYPE_INT24, MYSQL_TYPE_LONG, MYSQL_TYPE_LONGLONG, MYSQL_TYPE_YEAR, MYSQL_TYPE_BIT:
            return .integer
        case MYSQL_TYPE_FLOAT, MYSQL_TYPE_DOUBLE:
            return .double
        case MYSQL_TYPE_DECIMAL, MYSQL_TYPE_NEWDECIMAL:
            return .decimal
        case MYSQL_TYPE_DATETIME, MYSQL_TYPE_TIMESTAMP, MYSQL_TYPE_DATE, MYSQL_TYPE_DATETIME2, MYSQL_TYPE_TIMESTAMP2:
            return .time
        default:
            return field.charsetnr == binaryCharset ? .bytes : .text
        }
    }

    /// A column's type for messages: `LONGLONG UNSIGNED`, `BLOB (binary)`.
    static func describe(_ field: MYSQL_FIELD) -> String {
        let names: [enum_field_types: String] = [
            MYSQL_TYPE_TINY: "TINYINT", MYSQL_TYPE_SHORT: "SMALLINT", MYSQL_TYPE_LONG: "INT", MYSQL_TYPE_LONGLONG: "BIGINT",
            MYSQL_TYPE_FLOAT: "FLOAT", MYSQL_TYPE_DOUBLE: "DOUBLE", MYSQL_TYPE_NEWDECIMAL: "DECIMAL", MYSQL_TYPE_DATETIME: "DATETIME",
            MYSQL_TYPE_TIMESTAMP: "TIMESTAMP", MYSQL_TYPE_BLOB: "BLOB", MYSQL_TYPE_VAR_STRING: "VARCHAR", MYSQL_TYPE_STRING: "CHAR",
        ]
        let name = names[field.type] ?? "type \(field.type.rawValue)"
        return name + (field.charsetnr == binaryCharset && kind(of: field) == .bytes ? " (binary)" : "")
    }
}

/// `MYSQL_TIME` from and to `Date`, in UTC.
struct MySQLTime {
    let value: MYSQL_TIME

    init?(_ date: Date) {
        var microseconds = (date.timeIntervalSince1970 * 1_000_000).rounded()
        guard microseconds.isFinite else { return nil }
        var seconds = Int((microseconds / 1_000_000).rounded(.down))
        microseconds -= Double(seconds) * 1_000_000
        if microseconds >= 1_000_000 {
            seconds += 1
            microseconds -= 1_000_000
        }
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return nil }
        let year = Int(parts.tm_year) + 1900
        guard (1000 ... 9999).contains(year) else { return nil }
        var value = MYSQL_TIME()
        value.year = UInt32(year)
        value.month = UInt32(parts.tm_mon + 1)
        value.day = UInt32(parts.tm_mday)
        value.hour = UInt32(parts.tm_hour)
        value.minute = UInt32(parts.tm_min)
        value.second = UInt32(parts.tm_sec)
        value.second_part = UInt(microseconds)
        value.time_type = MYSQL_TIMESTAMP_DATETIME
        self.value = value
    }

    static func date(_ time: MYSQL_TIME) -> Date? {
        guard time.year > 0, time.month > 0, time.day > 0 else { return nil }
        var parts = tm()
        parts.tm_year = Int32(time.year) - 1900
        parts.tm_mon = Int32(time.month) - 1
        parts.tm_mday = Int32(time.day)
        parts.tm_hour = Int32(time.hour)
        parts.tm_min = Int32(time.minute)
        parts.tm_sec = Int32(time.second)
        let seconds = timegm(&parts)
        return Date(timeIntervalSince1970: Double(seconds) + Double(time.second_part) / 1_000_000)
    }
}
