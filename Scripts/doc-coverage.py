#!/usr/bin/env python3
"""Lists the public declarations of CRUD's library modules that have no doc comment.

A declaration counts when it is `public` or `open`, or sits in a `public extension` or public
protocol, or is a case of a public enum. It is documented when a `///` or `/** */` comment comes
right before it (attributes may stand between), or when it implements a requirement of a protocol
its type conforms to and that requirement is documented (one of ours with a doc comment, or the
standard library's): DocC shows the requirement's comment there (across modules with
`--enable-inherited-docs`). Usage: Scripts/doc-coverage.py [--list]; exit status 1 when any
declaration lacks a comment."""
import os
import re
import sys

MODULES = ["CRUD", "CRUDSQLite", "CRUDPostgres", "CRUDMySQL", "CRUDTesting"]
DECL = re.compile(r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*((?:(?:public|open|private|fileprivate|internal|package|static|class|final|override|"
                  r"mutating|nonmutating|nonisolated|indirect|convenience|required|lazy|weak|unowned|consuming|borrowing|__consuming|"
                  r"prefix|postfix|infix|dynamic|optional)(?:\([^)]*\))?\s+)*)"
                  r"(func|var|let|init\??|init!|subscript|case|struct|class|enum|protocol|actor|typealias|associatedtype|extension|deinit|macro|operator|precedencegroup)\b")


# Requirements of the standard library's protocols that CRUD's types implement.
STANDARD = {
    "CustomStringConvertible": {"description"},
    "CustomDebugStringConvertible": {"debugDescription"},
    "LocalizedError": {"errorDescription"},
    "Equatable": {"=="},
    "Hashable": {"hash", "hashValue", "=="},
    "Comparable": {"<"},
    "Sequence": {"makeIterator", "Element", "Iterator", "underestimatedCount"},
    "Collection": {"startIndex", "endIndex", "subscript", "index", "Index", "Element", "count", "isEmpty", "Indices", "indices", "makeIterator"},
    "BidirectionalCollection": {"index", "formIndex"},
    "RandomAccessCollection": {"startIndex", "endIndex", "subscript", "index", "Index", "Element", "count", "distance"},
    "IteratorProtocol": {"next", "Element"},
    "AsyncSequence": {"makeAsyncIterator", "Element", "AsyncIterator", "Failure"},
    "AsyncIteratorProtocol": {"next", "Element"},
    "ExpressibleByStringLiteral": {"init(stringLiteral:)"},
    "ExpressibleByStringInterpolation": {"init(stringInterpolation:)"},
    "ExpressibleByIntegerLiteral": {"init(integerLiteral:)"},
    "ExpressibleByFloatLiteral": {"init(floatLiteral:)"},
    "ExpressibleByBooleanLiteral": {"init(booleanLiteral:)"},
    "ExpressibleByNilLiteral": {"init(nilLiteral:)"},
    "ExpressibleByArrayLiteral": {"init(arrayLiteral:)"},
    "ExpressibleByDictionaryLiteral": {"init(dictionaryLiteral:)"},
    "Encodable": {"encode"},
    "Decodable": {"init(from:)"},
    "Codable": {"encode", "init(from:)"},
    "RawRepresentable": {"rawValue", "init(rawValue:)", "RawValue"},
    "OptionSet": {"rawValue", "init(rawValue:)", "RawValue"},
    "Identifiable": {"id", "ID"},
    "TaskExecutor": {"enqueue"},
    "Error": set(),
}


def member_key(code, keyword):
    """The name a requirement and its implementation share: a base name, or an initializer's labels."""
    rest = code[code.index(keyword) + len(keyword):] if keyword in code else ""
    if keyword.startswith("init"):
        inside = rest[rest.find("(") + 1:] if "(" in rest else ""
        depth, labels, current = 0, [], ""
        for ch in inside:
            if ch in "([<":
                depth += 1
            elif ch in ")]>":
                if depth == 0:
                    break
                depth -= 1
            if depth == 0 and ch == ",":
                labels.append(current)
                current = ""
            else:
                current += ch
        if current.strip():
            labels.append(current)
        names = [part.split(":")[0].strip().split(" ")[0] for part in labels if ":" in part]
        return "init(" + "".join(name + ":" for name in names) + ")"
    if keyword == "subscript":
        return "subscript"
    match = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*|[^\sA-Za-z0-9_(<]+)", rest)
    return match.group(1) if match else ""


def conformances(code):
    """The protocols a type or extension header lists after its colon."""
    match = re.search(r"(?:struct|class|enum|protocol|actor|extension)\s+[\w.]+(?:<[^>]*>)?\s*:\s*([^{]*)", code)
    if not match:
        return []
    listed = match.group(1).split(" where ")[0]
    return [re.sub(r"<.*", "", name).strip().split(".")[-1] for name in listed.split(",") if name.strip()]


def type_name(code):
    match = re.search(r"(?:struct|class|enum|protocol|actor|extension)\s+([\w.]+)", code)
    return match.group(1).split(".")[-1] if match else ""


def strip_strings(line):
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', line)


def scan(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    found = []
    # Each open brace: (kind, public-by-default for members, is public enum)
    stack = []
    pending = None  # what the next "{" opens
    in_block_comment = False
    multiline_string = False
    for number, raw in enumerate(lines, 1):
        line = raw
        if multiline_string:
            if '"""' not in line:
                continue
            # What follows the closing quotes is code (a closure's brace, say).
            multiline_string = False
            line = line.split('"""', 1)[1]
        if line.count('"""') % 2 == 1:
            multiline_string = True
            line = line.split('"""')[0]
        stripped = line.strip()
        if in_block_comment:
            if "*/" in stripped:
                in_block_comment = False
            continue
        if stripped.startswith("/*") and "*/" not in stripped:
            in_block_comment = True
            continue
        if stripped.startswith("//"):
            continue
        code = strip_strings(line.split("//")[0] if "//" in strip_strings(line) else line)
        code = strip_strings(code)
        match = DECL.match(code)
        if match:
            modifiers, keyword = match.group(1), match.group(2)
            explicit_public = re.search(r"\b(public|open)\b", modifiers) is not None
            hidden = re.search(r"\b(private|fileprivate|internal|package)\b", modifiers) is not None
            parent = stack[-1] if stack else None
            in_public_extension = parent is not None and parent[0] == "extension" and parent[1]
            in_public_enum = parent is not None and parent[0] == "enum" and parent[2]
            in_public_protocol = parent is not None and parent[0] == "protocol" and parent[1]
            is_public = explicit_public or (not hidden and (in_public_extension or in_public_protocol or (keyword == "case" and in_public_enum)))
            if keyword == "case" and not (parent is not None and parent[0] == "enum"):
                is_public = False  # a `case` of a switch
            in_spi = parent is not None and len(parent) > 4 and parent[4]
            if is_public and not in_spi and keyword not in ("extension", "deinit") and not re.search(r"@_spi|@_documentation\(visibility", raw):
                # Walk back over attributes to the comment, if any.
                k = number - 2
                while k >= 0 and lines[k].strip().startswith("@"):
                    k -= 1
                before = lines[k].strip() if k >= 0 else ""
                documented = before.startswith("///") or before.endswith("*/")
                owner = (parent[3][0], parent[3][1], parent[0]) if parent is not None and len(parent) > 3 else None
                found.append((path, number, stripped, documented, owner, member_key(code, keyword), keyword))
            if keyword in ("struct", "class", "enum", "protocol", "actor", "extension"):
                header, k = code, number
                while "{" not in header and k < len(lines) and k < number + 4:
                    header += " " + lines[k].strip()
                    k += 1
                # The members of an SPI type are SPI too: outside the users' API, as the type is.
                spi = re.search(r"@_spi", raw) is not None
                pending = (keyword, (is_public if keyword != "extension" else explicit_public) and not spi, keyword == "enum" and is_public,
                           (type_name(header), conformances(header)), spi or (parent is not None and len(parent) > 4 and parent[4]))
        for ch in code:
            if ch == "{":
                stack.append(pending if pending else ("block", False, False))
                pending = None
            elif ch == "}":
                if stack:
                    stack.pop()
    return found


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources")
    found = []
    for module in MODULES:
        for directory, _, files in os.walk(os.path.join(root, module)):
            for name in sorted(files):
                if name.endswith(".swift"):
                    found += scan(os.path.join(directory, name))
    # Each protocol of ours: its documented requirements and the protocols it refines; each type:
    # every protocol it is declared or extended to conform to.
    documented_requirements, refines, conforms = {}, {}, {}
    for entry in found:
        owner = entry[4]
        if owner is None:
            continue
        name, listed, _ = owner
        conforms.setdefault(name, set()).update(listed)
    for path, number, text, documented, owner, key, keyword in found:
        if keyword == "protocol":
            name = type_name(text)
            refines[name] = set(conformances(text))
            documented_requirements.setdefault(name, set())
    for path, number, text, documented, owner, key, keyword in found:
        # Only what the protocol's own body declares is a requirement, not its extensions' members.
        if owner is not None and owner[2] == "protocol" and documented:
            documented_requirements[owner[0]].add(key)

    def requirements(protocol, seen):
        if protocol in seen:
            return set()
        seen.add(protocol)
        result = set(STANDARD.get(protocol, set())) | documented_requirements.get(protocol, set())
        for parent in refines.get(protocol, set()):
            result |= requirements(parent, seen)
        return result

    def inherits(entry):
        owner, key = entry[4], entry[5]
        if owner is None or entry[6] in ("struct", "class", "enum", "protocol", "actor", "case"):
            return False
        # A protocol's own extension gives default implementations of its requirements.
        protocols = set(owner[1]) | conforms.get(owner[0], set()) | {owner[0]}
        return any(key in requirements(protocol, set()) for protocol in protocols)

    missing = [f for f in found if not f[3] and not inherits(f)]
    if "--list" in sys.argv:
        for path, number, text, *_ in missing:
            print(f"{os.path.relpath(path, os.path.join(root, '..'))}:{number}: {text[:110]}")
    documented = len(found) - len(missing)
    print(f"{documented} of {len(found)} public declarations have a doc comment ({100.0 * documented / max(1, len(found)):.1f}%)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
