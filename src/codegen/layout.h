// The generated sources' layout, made by the generator itself: no external formatter runs on
// them, so the same (design, generator) gives the same bytes on every machine
// (docs/design-space.md, "Layout").
//
// Components write flat C++ (one statement or declaration per line, no indentation); lay_out
// indents it: two spaces per brace level (namespace and extern "C" bodies not indented, as in
// Google style), access specifiers one space in, a line inside unclosed parentheses or after a
// line ending in a binary operator four more, preprocessor directives at column 0 (#pragma at
// its code's level). Comments and string literals are not looked into; the lines of a block
// comment, a raw string or a continued macro keep their text. Trailing blanks go, runs of blank
// lines become one, and the text ends with one newline.
#pragma once

#include <string>

namespace vxsynth::codegen {

std::string lay_out(const std::string& text);

// The first line that breaks the layout rule above, as "line N: why"; "" when none. A layout is
// what lay_out makes of it: lay_out(lay_out(x)) == lay_out(x).
std::string layout_problem(const std::string& text);

// The text's tokens, one space apart: comments dropped and adjacent string literals joined
// (what a formatter may change without changing the code). Two texts with the same tokens are
// the same program, laid out differently.
std::string code_tokens(const std::string& text);

}  // namespace vxsynth::codegen
