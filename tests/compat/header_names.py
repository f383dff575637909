#!/usr/bin/env python3
"""Public names a C/C++ header declares: macros, types, functions, variables, enumerators,
public class members. Reserved identifiers (__x, _X), include guards, names inside namespace
`detail`, private/protected class members and function bodies are left out.

    header_names.py HEADER...          one name per line, sorted
    header_names.py --vh FILE.vh...    the `define names of a Verilog header (Vortex's
                                       VX_config.h / VX_types.h are generated from these)

Used by check_vortex_names.py on vxsynth's Vortex-named headers and, once, to write the list of
Vortex 2.x names (vortex2_names.txt) from a Vortex tree.
"""
import re
import sys

KEYWORDS = {
    "if", "for", "while", "switch", "return", "sizeof", "alignof", "alignas", "static_assert", "decltype",
    "__attribute__", "__asm__", "asm", "__asm", "__volatile__", "volatile", "defined", "noexcept", "operator",
    "__extension__", "case", "else", "do", "new", "delete", "throw", "typeid", "template", "typename",
    "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "__builtin_expect",
}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return text


def reserved(name):
    return name.startswith("__") or (name.startswith("_") and len(name) > 1 and name[1].isupper())


def macros(text):
    """#define names that stay defined, without include guards; returns (names, text without
    directives)."""
    lines = text.replace("\\\n", " ").split("\n")
    names, rest = set(), []
    previous_ifndef = None
    for line in lines:
        m = re.match(r"\s*#\s*(\w+)\s*(\w*)", line)
        if not m:
            rest.append(line)
            if line.strip():
                previous_ifndef = None
            continue
        directive, name = m.group(1), m.group(2)
        if directive == "define" and name and name != previous_ifndef:
            names.add(name)
        elif directive == "undef":
            names.discard(name)  # a helper the header removes again does not leak
        previous_ifndef = name if directive == "ifndef" else None
        rest.append("")
    return names, "\n".join(rest)


def skip_group(text, i, open_char, close_char):
    """Index after the group that opens at text[i]."""
    depth = 0
    while i < len(text):
        if text[i] == open_char:
            depth += 1
        elif text[i] == close_char:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def declarations(text):
    names = set()
    # Scopes: ("ns"/"class"/"struct"/"enum", public?) ; text inside function bodies is skipped.
    stack = [("ns", True)]
    statement = ""  # text since the last ; { or } at this level
    i = 0
    n = len(text)

    def public():
        return all(scope[1] for scope in stack)

    def scan_statement(stmt, kind_here):
        if not public():
            return
        s = " ".join(stmt.split())
        if not s:
            return
        s = re.sub(r"template\s*<.*?>\s*", "", s)
        for m in re.finditer(r"\busing\s+(\w+)\s*=", s):
            names.add(m.group(1))
        if s.startswith("typedef"):
            m = re.search(r"\(\s*\*\s*(\w+)\s*\)", s)
            if m:
                names.add(m.group(1))
            else:
                m = re.search(r"(\w+)\s*(\[[^\]]*\])?\s*$", s)
                if m:
                    names.add(m.group(1))
            return
        m = re.match(r"(?:typedef\s+)?(?:struct|class|union|enum(?:\s+class)?)\s+(\w+)\s*(?:final\s*)?(?::.*)?$", s)
        if m:
            names.add(m.group(1))
            return
        # Functions: a name before ( that follows a type, *, & or >.
        for m in re.finditer(r"(?:[\w\*&>]\s+|[\*&>])(~?\w+)\s*\(", s):
            if "=" in s[: m.start()]:
                break
            if m.group(1) not in KEYWORDS:
                names.add(m.group(1))
                return
        # Variables and constants: the name before =, [ or the end.
        m = re.search(r"\b(\w+)\s*(?:\[[^\]]*\])?\s*(?:=.*)?$", s)
        if m and m.group(1) not in KEYWORDS and re.search(r"\w\s+[\*&]?\s*" + re.escape(m.group(1)) + r"\b", s):
            if kind_here in ("ns", "struct", "class"):
                names.add(m.group(1))

    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            statement += " "
            i = j + 1
            continue
        if c == "(":
            j = skip_group(text, i, "(", ")")
            group = text[i:j]
            # Keep a function-pointer declarator "(*name)"; other groups only matter as "( )".
            statement += group if re.fullmatch(r"\(\s*\*\s*\w+\s*\)", group) else "( )"
            i = j
            continue
        kind = stack[-1][0]
        if c == "{":
            head = " ".join(statement.split())
            head_nt = re.sub(r"template\s*<.*?>\s*", "", head)
            m_ns = re.match(r"(?:inline\s+)?namespace\s*(\w*)$", head_nt)
            m_rec = re.match(r"(?:typedef\s+)?(?:__extension__\s+)?(struct|class|union|enum(?:\s+class)?)\s*(\w*)\b[^()]*$", head_nt)
            if m_ns:
                stack.append(("ns", m_ns.group(1) != "detail"))
                statement = ""
            elif head_nt.startswith('extern') and head_nt.replace(" ", "") == "extern":
                stack.append(("ns", True))
                statement = ""
            elif m_rec:
                rec = m_rec.group(1).split()[0]
                if m_rec.group(2) and public():
                    names.add(m_rec.group(2))
                if rec == "enum":
                    j = skip_group(text, i, "{", "}")
                    if public():
                        for item in strip_comments(text[i + 1 : j - 1]).split(","):
                            m = re.match(r"\s*(\w+)", item)
                            if m:
                                names.add(m.group(1))
                    i = j
                    statement = head + " {} "
                    continue
                stack.append((rec if rec in ("struct", "class", "union") else "struct",
                              rec != "class"))
                statement = ""
                # A typedef'd record keeps its statement for the typedef name.
                if head_nt.startswith("typedef"):
                    stack[-1] = (stack[-1][0], stack[-1][1], "typedef")
            else:
                # Function body or initializer: record the declaration, skip the body.
                scan_statement(statement, kind)
                i = skip_group(text, i, "{", "}")
                statement = ""
                continue
            i += 1
            continue
        if c == "}":
            top = stack.pop() if len(stack) > 1 else stack[0]
            statement = "typedef struct {} " if len(top) > 2 else ""
            i += 1
            continue
        if c == ";":
            scan_statement(statement, kind)
            statement = ""
            i += 1
            continue
        if c == ":" and stack[-1][0] in ("struct", "class", "union"):
            label = statement.strip()
            if label in ("public", "private", "protected"):
                stack[-1] = (stack[-1][0], label == "public") + tuple(stack[-1][2:])
                statement = ""
                i += 1
                continue
        statement += c
        i += 1
    return names


def header_names(path):
    with open(path, encoding="utf-8") as f:
        text = strip_comments(f.read())
    macro_names, rest = macros(text)
    names = macro_names | declarations(rest)
    names.discard("extern")
    return {name for name in names if not reserved(name) and not name.isdigit()}


def vh_names(path):
    with open(path, encoding="utf-8") as f:
        return set(re.findall(r"^\s*`define\s+(\w+)", f.read(), flags=re.M))


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    names = set()
    if argv[0] == "--vh":
        for path in argv[1:]:
            names |= vh_names(path)
    else:
        for path in argv:
            names |= header_names(path)
    for name in sorted(names):
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
