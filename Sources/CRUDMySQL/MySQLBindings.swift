#if MySQL
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
    // Read for every column of every row: a statement, and with it its bindings, is used by one
    // thread at a time (its connection's), so the dynamic exclusivity checks (about 100 instructions
    // a read) guard nothing.
    /// Buffers for text and bytes, grown as needed; `nil` where the bind uses its slot.
    @exclusivity(unchecked) private var buffers: [UnsafeMutableRawPointer?]
    @exclusivity(unchecked) private var capacities: [Int]
    @exclusivity(unchecked) private var kinds: [Kind]
    @exclusivity(unchecked) private var isSet: [Bool]

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

    /// About how many bytes the bound values take in an execute packet: their lengths, and for
    /// each a length prefix and its type.
    var packetBytes: Int {
        var total = 64
        for index in 0 ..< count { total += Int(binds[index].buffer_length) + 11 }
        return total
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
        // Past ±10^12 seconds (30,000 years) the year is out of DATETIME's range anyway, and the
        // conversion to Int below could overflow.
        guard microseconds.isFinite, abs(microseconds) < 1e18 else { return nil }
        var seconds = Int((microseconds / 1_000_000).rounded(.down))
        microseconds -= Double(seconds) * 1_000_000
        if microseconds >= 1_000_000 {
            seconds += 1
            microseconds -= 1_000_000
        }
        let (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let (year, month, day) = Self.civil(fromDays: secondOfDay < 0 ? days - 1 : days)
        let second = secondOfDay < 0 ? secondOfDay + 86_400 : secondOfDay
        guard (1000 ... 9999).contains(year) else { return nil }
        var value = MYSQL_TIME()
        value.year = UInt32(year)
        value.month = UInt32(month)
        value.day = UInt32(day)
        value.hour = UInt32(second / 3_600)
        value.minute = UInt32(second % 3_600 / 60)
        value.second = UInt32(second % 60)
        value.second_part = UInt(microseconds)
        value.time_type = MYSQL_TIMESTAMP_DATETIME
        self.value = value
    }

    static func date(_ time: MYSQL_TIME) -> Date? {
        guard time.year > 0, (1 ... 12).contains(time.month), time.day > 0 else { return nil }
        let days = Self.days(year: Int(time.year), month: Int(time.month), day: Int(time.day))
        let seconds = days * 86_400 + Int(time.hour) * 3_600 + Int(time.minute) * 60 + Int(time.second)
        return Date(timeIntervalSince1970: Double(seconds) + Double(time.second_part) / 1_000_000)
    }

    // The proleptic Gregorian calendar in plain arithmetic (after Howard Hinnant's `days_from_civil`
    // and `civil_from_days`): libc's timegm and gmtime_r cost about 600 instructions a value, more
    // than the rest of reading a row. Eras of 400 years repeat exactly; March starts the computed
    // year so that the leap day comes last.

    /// Days since 1970-01-01 of a date; a day past the month's end runs into the next month, as
    /// timegm's did.
    static func days(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` days after 1970-01-01.
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let marchMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * marchMonth + 2) / 5 + 1
        let month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
#endif
