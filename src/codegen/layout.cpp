#include "codegen/layout.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

namespace vxsynth::codegen {
namespace {

constexpr int kIndent = 2;        // per brace level
constexpr int kContinuation = 4;  // a statement's later lines
constexpr std::size_t kColumns = 110;

std::string trim_right(const std::string& s) {
  std::size_t end = s.size();
  while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\r')) --end;
  return s.substr(0, end);
}

std::string trim(const std::string& s) {
  const std::string r = trim_right(s);
  std::size_t begin = 0;
  while (begin < r.size() && (r[begin] == ' ' || r[begin] == '\t')) ++begin;
  return r.substr(begin);
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// What a line leaves open for the next: a block comment, a raw string, a continued directive,
// and the bracket nesting of the code.
struct Scanner {
  bool in_block_comment = false;
  std::string raw_end;                // ")delim\"" while inside a raw string
  std::vector<bool> braces;           // true: the brace indents its body
  int parens = 0;                     // ( and [ not yet closed
  std::string code;                   // the line's code: comments and literal contents blanked

  bool inside_literal() const { return in_block_comment || !raw_end.empty(); }
  // The indenting braces open, the innermost `closed` of them taken as closed.
  int level(int closed = 0) const {
    int n = 0;
    const int open = static_cast<int>(braces.size()) - std::min<int>(closed, static_cast<int>(braces.size()));
    for (int i = 0; i < open; ++i) n += braces[static_cast<std::size_t>(i)] ? 1 : 0;
    return n;
  }

  // Scans one line (from its start, in the state the previous line left).
  void scan(const std::string& line) {
    code.clear();
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (in_block_comment) {
        if (c == '*' && i + 1 < line.size() && line[i + 1] == '/') {
          in_block_comment = false;
          ++i;
        }
        continue;
      }
      if (!raw_end.empty()) {
        if (line.compare(i, raw_end.size(), raw_end) == 0) {
          i += raw_end.size() - 1;
          raw_end.clear();
          code += "\"\"";
        }
        continue;
      }
      if (c == '/' && i + 1 < line.size() && line[i + 1] == '/') break;
      if (c == '/' && i + 1 < line.size() && line[i + 1] == '*') {
        in_block_comment = true;
        ++i;
        continue;
      }
      if (c == 'R' && i + 1 < line.size() && line[i + 1] == '"' && (i == 0 || !(std::isalnum(static_cast<unsigned char>(line[i - 1])) || line[i - 1] == '_'))) {
        const std::size_t open = line.find('(', i + 2);
        if (open != std::string::npos) {
          raw_end = ")" + line.substr(i + 2, open - i - 2) + "\"";
          i = open;
          continue;
        }
      }
      if (c == '"' || c == '\'') {
        std::size_t j = i + 1;
        while (j < line.size() && line[j] != c) j += line[j] == '\\' ? 2 : 1;
        code += std::string(2, c);
        i = j;
        continue;
      }
      code += c;
      if (c == '{') {
        // A namespace's or an extern "C" block's body stays at its level.
        const std::string head = trim(code);
        braces.push_back(!(starts_with(head, "namespace") || starts_with(head, "extern \"\"")));
      } else if (c == '}') {
        if (!braces.empty()) braces.pop_back();
      } else if (c == '(' || c == '[') {
        ++parens;
      } else if ((c == ')' || c == ']') && parens > 0) {
        --parens;
      }
    }
  }
};

// A statement goes on past this line when its code ends in a binary operator.
bool ends_in_operator(const std::string& code) {
  const std::string c = trim(code);
  if (c.empty()) return false;
  for (const char* op : {"&&", "||", "<<", ">>", "=", "+", "*", "/", "%", "?", "|", "^", "&"}) {
    if (ends_with(c, op)) return !(ends_with(c, "++") || ends_with(c, "->") || ends_with(c, "*/"));
  }
  return ends_with(c, "-") && !ends_with(c, "--");
}

bool is_access_specifier(const std::string& s) {
  return s == "public:" || s == "private:" || s == "protected:";
}


// Where a long code line may break: after ", " inside parentheses (open_parens are open at the
// line's start) or after a binary || && + - * & |, outside literals and braces, before a trailing
// comment.
std::vector<std::size_t> break_points(const std::string& s, int open_parens) {
  std::vector<std::size_t> out;
  int depth = open_parens, braces = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '/' && i + 1 < s.size() && (s[i + 1] == '/' || s[i + 1] == '*')) break;
    if (c == '"' || c == '\'') {
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != c) j += s[j] == '\\' ? 2 : 1;
      i = j;
    } else if (c == '(' || c == '[') {
      ++depth;
    } else if (c == ')' || c == ']') {
      --depth;
    } else if (c == '{' || c == '}') {
      braces += c == '{' ? 1 : -1;
    } else if (c == ',' && depth > 0 && braces == 0 && i + 1 < s.size() && s[i + 1] == ' ') {
      out.push_back(i + 2);
    } else if (braces == 0 && i > 0 && s[i - 1] == ' ' && i + 2 < s.size()) {
      // After a binary operator: the piece before it ends in one, as ends_in_operator reads.
      if ((s.compare(i, 3, "|| ") == 0 || s.compare(i, 3, "&& ") == 0)) {
        out.push_back(i + 3);
        ++i;
      } else if ((c == '+' || c == '-' || c == '*' || c == '&' || c == '|') && s[i + 1] == ' ') {
        out.push_back(i + 2);
      }
    }
  }
  return out;
}

// A whole-line // comment past kColumns, broken between words; later lines keep its
// indentation after the slashes, two columns further in.
std::string wrap_comment(const std::string& s, std::size_t indent) {
  const std::string first(indent, ' ');
  if (indent + s.size() <= kColumns) return first + s + "\n";
  std::size_t text = 2;
  while (text < s.size() && s[text] == ' ') ++text;
  const std::string lead = s.substr(0, text);
  const std::string later_lead = lead + (text > 3 ? "  " : "");
  std::string out, line = lead;
  std::istringstream words(s.substr(text));
  bool at_start = true;
  for (std::string w; words >> w;) {
    if (!at_start && indent + line.size() + 1 + w.size() > kColumns) {
      out += first + line + "\n";
      line = later_lead;
      at_start = true;
    }
    line += (at_start ? "" : " ") + w;
    at_start = false;
  }
  return out + first + line + "\n";
}

// The line at `indent` (its brace level's at `level_indent`), broken where it passes kColumns:
// each later piece starts inside parentheses, where lay_out puts a line.
std::string wrap(const std::string& s, std::size_t indent, std::size_t level_indent, int open_parens) {
  const std::string first(indent, ' ');
  if (indent + s.size() <= kColumns) return first + s + "\n";
  const std::string later(level_indent + kContinuation, ' ');
  const auto points = break_points(s, open_parens);
  std::string out;
  std::size_t begin = 0, column = indent;
  while (true) {
    // The last break that keeps this piece within the limit (else the first one past it).
    std::size_t cut = std::string::npos;
    for (const std::size_t p : points) {
      if (p <= begin) continue;
      if (column + (p - begin) - 1 <= kColumns || cut == std::string::npos) cut = p;
      if (column + (p - begin) - 1 > kColumns) break;
    }
    if (cut == std::string::npos || column + (s.size() - begin) <= kColumns) {
      out += (begin == 0 ? first : later) + s.substr(begin) + "\n";
      return out;
    }
    out += (begin == 0 ? first : later) + s.substr(begin, cut - begin - 1) + "\n";
    begin = cut;
    column = later.size();
  }
}

}  // namespace

std::string lay_out(const std::string& text) {
  std::istringstream in(text);
  std::ostringstream out;
  Scanner scanner;
  bool continues = false;      // the previous code line ends inside a statement
  bool directive_goes_on = false;
  bool blank_pending = false, any = false;
  for (std::string line; std::getline(in, line);) {
    if (scanner.inside_literal() || directive_goes_on) {
      // A block comment's, a raw string's or a continued directive's later lines: their text.
      const std::string kept = scanner.inside_literal() ? line : trim_right(line);
      if (!scanner.inside_literal()) directive_goes_on = ends_with(kept, "\\");
      if (blank_pending) out << "\n";
      blank_pending = false;
      out << kept << "\n";
      scanner.scan(line);
      continues = scanner.parens == 0 && ends_in_operator(scanner.code);
      any = true;
      continue;
    }
    const std::string s = trim(line);
    if (s.empty()) {
      blank_pending = any;
      continue;
    }
    if (blank_pending) out << "\n";
    blank_pending = false;
    any = true;
    if (s[0] == '#') {
      const bool pragma = starts_with(s, "#pragma");
      out << std::string(pragma ? kIndent * scanner.level() : 0, ' ') << s << "\n";
      directive_goes_on = ends_with(s, "\\");
      continue;
    }
    // Leading closers belong to the level they close.
    int closers = 0, paren_closers = 0;
    for (const char c : s) {
      if (c == '}') {
        ++closers;
      } else if (c == ')' || c == ']') {
        ++paren_closers;
      } else if (c != ' ' && c != ';' && c != ',') {
        break;
      }
    }
    const int level_indent = kIndent * scanner.level(closers);
    int indent = level_indent;
    if (is_access_specifier(s)) indent = indent > 0 ? indent - 1 : 0;
    if (scanner.parens - paren_closers > 0 || (continues && closers == 0)) indent += kContinuation;
    if (starts_with(s, "//")) {
      out << wrap_comment(s, static_cast<std::size_t>(indent));
      continue;
    }
    out << wrap(s, static_cast<std::size_t>(indent), static_cast<std::size_t>(level_indent), scanner.parens - paren_closers);
    scanner.scan(s);
    continues = scanner.parens == 0 && ends_in_operator(scanner.code);
  }
  return out.str();
}

std::string layout_problem(const std::string& text) {
  const std::string laid = lay_out(text);
  if (laid == text) return "";
  std::istringstream a(text), b(laid);
  std::string la, lb;
  for (int n = 1;; ++n) {
    const bool ha = static_cast<bool>(std::getline(a, la));
    const bool hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) return "the text does not end in exactly one newline";
    if (ha != hb || la != lb) {
      return "line " + std::to_string(n) + ": \"" + (ha ? la : std::string("(end)")) + "\" is laid out as \"" +
             (hb ? lb : std::string("(end)")) + "\"";
    }
  }
}

std::string code_tokens(const std::string& text) {
  std::vector<std::string> tokens;
  bool last_was_string = false;
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (text.compare(i, 2, "/*") == 0) {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 2;
      continue;
    }
    if (c == '"' || c == '\'') {
      std::size_t j = i + 1;
      while (j < text.size() && text[j] != c) j += text[j] == '\\' ? 2 : 1;
      const std::string literal = text.substr(i, std::min(j, text.size() - 1) - i + 1);
      if (c == '"' && last_was_string) {
        tokens.back().pop_back();  // "ab" "cd" is "abcd"
        tokens.back() += literal.substr(1);
      } else {
        tokens.push_back(literal);
      }
      last_was_string = c == '"';
      i = j + 1;
      continue;
    } else if (word(c)) {
      std::size_t j = i;
      while (j < text.size() && word(text[j])) ++j;
      // A raw string literal is one token, whatever it holds.
      if (j < text.size() && text[j] == '"' && text.substr(i, j - i) == "R") {
        const std::size_t open = text.find('(', j);
        const std::string close = ")" + text.substr(j + 1, open - j - 1) + "\"";
        const std::size_t end = text.find(close, open);
        j = end == std::string::npos ? text.size() : end + close.size();
      }
      tokens.push_back(text.substr(i, j - i));
      i = j;
    } else {
      tokens.emplace_back(1, c);
      ++i;
    }
    last_was_string = false;
  }
  std::string out;
  for (const auto& t : tokens) out += (out.empty() ? "" : " ") + t;
  return out;
}

}  // namespace vxsynth::codegen
