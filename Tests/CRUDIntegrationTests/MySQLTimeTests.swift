#if MySQL
@testable import CRUDMySQL
import CMariaDB
import Foundation
import Testing

/// The driver's own calendar arithmetic for DATETIME values, against Foundation's Gregorian calendar.
@Suite("MySQL DATETIME conversion")
struct MySQLTimeTests {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    @Test("every day of DATETIME's range converts to its date and back; sampled days agree with Foundation's calendar")
    func days() throws {
        let first = MySQLTime.days(year: 1000, month: 1, day: 1)
        let last = MySQLTime.days(year: 9999, month: 12, day: 31)
        #expect(last - first == 3_287_181, "the days of 9,000 Gregorian years")
        var previous = MySQLTime.civil(fromDays: first - 1)
        for day in first ... last {
            let civil = MySQLTime.civil(fromDays: day)
            #expect(MySQLTime.days(year: civil.year, month: civil.month, day: civil.day) == day)
            // Each day follows the one before: the next day of the month, or after the month's last
            // day (by the proleptic Gregorian rules MySQL uses) the first of the next month.
            let follows = (civil.year, civil.month, civil.day) == (previous.year, previous.month, previous.day + 1)
                || civil.day == 1 && previous.day == Self.length(year: previous.year, month: previous.month)
                    && (civil.year, civil.month) == (previous.month == 12 ? (previous.year + 1, 1) : (previous.year, previous.month + 1))
            if !follows { Issue.record("day \(day): \(civil) does not follow \(previous)"); return }
            previous = civil
        }
        // Foundation's Gregorian calendar is Julian before the reform of October 1582.
        let reform = MySQLTime.days(year: 1583, month: 1, day: 1)
        for day in stride(from: reform, through: last, by: 997) + [0, -1, 11_016, 10_956, -25_508, 59] {
            let civil = MySQLTime.civil(fromDays: day)
            let parts = Self.utc.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(day) * 86_400))
            #expect([civil.year, civil.month, civil.day] == [parts.year, parts.month, parts.day], "day \(day)")
        }
        #expect(MySQLTime.civil(fromDays: 11_016) == (2000, 2, 29))
        #expect(MySQLTime.civil(fromDays: -25_508) == (1900, 3, 1), "1900 is no leap year")
    }

    static func length(year: Int, month: Int) -> Int {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    @Test("dates before 1970 and with fractions of a second; dates out of DATETIME's range are refused, never a crash")
    func dates() throws {
        let beforeEpoch = try #require(MySQLTime(Date(timeIntervalSince1970: -86_400.5))).value
        #expect([beforeEpoch.year, beforeEpoch.month, beforeEpoch.day, beforeEpoch.hour, beforeEpoch.minute, beforeEpoch.second]
            == [1969, 12, 30, 23, 59, 59])
        #expect(beforeEpoch.second_part == 500_000)
        #expect(MySQLTime.date(beforeEpoch) == Date(timeIntervalSince1970: -86_400.5))

        let moment = Date(timeIntervalSince1970: 1_700_000_000.123_456)
        let stored = try #require(MySQLTime(moment)).value
        #expect([stored.year, stored.month, stored.day, stored.hour, stored.minute, stored.second] == [2023, 11, 14, 22, 13, 20])
        #expect(abs(try #require(MySQLTime.date(stored)).timeIntervalSince(moment)) < 0.000_001)

        for outside in [Date(timeIntervalSince1970: 1e300), Date(timeIntervalSince1970: -1e15), .distantPast,
                        Date(timeIntervalSince1970: .infinity), Date(timeIntervalSince1970: .nan),
                        Self.utc.date(from: DateComponents(year: 10_000, month: 1, day: 1))!] {
            #expect(MySQLTime(outside) == nil, "\(outside)")
        }
        var zero = MYSQL_TIME()
        #expect(MySQLTime.date(zero) == nil, "MySQL's zero date is no date")
        zero.year = 2024
        zero.month = 13
        zero.day = 1
        #expect(MySQLTime.date(zero) == nil)
    }
}
#endif
