// The generator's own layout (codegen/layout.h) and its token view of a source.
#include <gtest/gtest.h>

#include <string>

#include "codegen/generator.h"
#include "codegen/layout.h"
#include "common/error.h"
#include "common/json_io.h"

namespace vxsynth::codegen {
namespace {

TEST(Layout, IndentsByBraceLevelButNotNamespaceBodies) {
  const std::string flat =
      "namespace {\n"
      "struct Params {\n"
      "int m;\n"
      "};\n"
      "__global__ void k(const Params p) {\n"
      "if (p.m > 0) {\n"
      "for (int i = 0; i < 4; ++i) { x(i); }\n"
      "} else {\n"
      "y();\n"
      "}\n"
      "}\n"
      "}  // namespace\n"
      "extern \"C\" {\n"
      "int f() { return 1; }\n"
      "}\n";
  EXPECT_EQ(lay_out(flat),
            "namespace {\n"
            "struct Params {\n"
            "  int m;\n"
            "};\n"
            "__global__ void k(const Params p) {\n"
            "  if (p.m > 0) {\n"
            "    for (int i = 0; i < 4; ++i) { x(i); }\n"
            "  } else {\n"
            "    y();\n"
            "  }\n"
            "}\n"
            "}  // namespace\n"
            "extern \"C\" {\n"
            "int f() { return 1; }\n"
            "}\n");
}

TEST(Layout, ContinuationsDirectivesAndAccessSpecifiers) {
  const std::string flat =
      "#include <cuda_runtime.h>\n"
      "class A {\n"
      "public:\n"
      "int f(int a,\n"
      "int b) {\n"
      "    #pragma unroll\n"
      "for (;;) {\n"
      "#if X\n"
      "const int v = a +\n"
      "b;\n"
      "#endif\n"
      "}\n"
      "}\n"
      "};\n";
  EXPECT_EQ(lay_out(flat),
            "#include <cuda_runtime.h>\n"
            "class A {\n"
            " public:\n"
            "  int f(int a,\n"
            "      int b) {\n"
            "    #pragma unroll\n"
            "    for (;;) {\n"
            "#if X\n"
            "      const int v = a +\n"
            "          b;\n"
            "#endif\n"
            "    }\n"
            "  }\n"
            "};\n");
}

TEST(Layout, LeavesCommentsStringsAndRawStringsAlone) {
  // Braces inside comments and literals do not count; a raw string's and a block comment's
  // lines keep their text, trailing blanks included.
  const std::string flat =
      "void f() {\n"
      "// a } in a comment\n"
      "const char* s = \"{ not a brace\";\n"
      "const char c = '{';\n"
      "const char* r = R\"x(line one {\n"
      "   kept as is  \n"
      ")x\";\n"
      "/* a block { comment\n"
      "     kept */\n"
      "g();\n"
      "}\n";
  EXPECT_EQ(lay_out(flat),
            "void f() {\n"
            "  // a } in a comment\n"
            "  const char* s = \"{ not a brace\";\n"
            "  const char c = '{';\n"
            "  const char* r = R\"x(line one {\n"
            "   kept as is  \n"
            ")x\";\n"
            "  /* a block { comment\n"
            "     kept */\n"
            "  g();\n"
            "}\n");
}

TEST(Layout, TrimsBlanksAndIsIdempotent) {
  const std::string flat = "\n\nint a;   \n\n\n\n\tint b;\n\n";
  const std::string laid = lay_out(flat);
  EXPECT_EQ(laid, "int a;\n\nint b;\n");
  EXPECT_EQ(lay_out(laid), laid);
  EXPECT_EQ(layout_problem(laid), "");
  // The first line off the layout is named, with what it should be.
  const std::string off = "void f() {\n   g();\n}\n";
  EXPECT_EQ(layout_problem(off), "line 2: \"   g();\" is laid out as \"  g();\"");
  EXPECT_NE(layout_problem("int a;"), "");  // no final newline
}

TEST(Layout, CodeTokensIgnoreLayoutAndCommentsButNotCode) {
  const std::string a = "int f(int x) {  // doubles\n  return x * 2;\n}\n";
  const std::string b = "int f(int x)\n{\n    /* doubles */ return x*2;\n}";
  EXPECT_EQ(code_tokens(a), code_tokens(b));
  EXPECT_NE(code_tokens(a), code_tokens("int f(int x) { return x * 3; }"));
  // Adjacent string literals are one literal (a formatter may split a long one).
  EXPECT_EQ(code_tokens("asm(\"ld.shared %0;\" \"\\n\");"), code_tokens("asm(\"ld.shared %0;\\n\");"));
  // A change inside a literal is a change.
  EXPECT_NE(code_tokens("asm(\"ld.global %0;\");"), code_tokens("asm(\"ld.shared %0;\");"));
  EXPECT_NE(code_tokens("auto r = R\"(a b)\";"), code_tokens("auto r = R\"(a  b)\";"));
}

TEST(Generator, ItsRecordRoundTripsAndBadOnesAreNamed) {
  const GeneratorId now = current_generator();
  EXPECT_EQ(now.version, kGeneratorVersion);
  EXPECT_GE(now.version, 1);
  const Json record{{"generator", generator_to_json({3, "0123456789abcdef0123456789abcdef01234567"})}};
  EXPECT_EQ(generator_from_json(record, "r.json"), (GeneratorId{3, "0123456789abcdef0123456789abcdef01234567"}));
  EXPECT_EQ(describe(generator_from_json(record, "r.json")), "generator 3 (commit 0123456789ab)");
  // Records made before versions: the unversioned generator.
  EXPECT_TRUE(generator_from_json(Json::object(), "r.json").unversioned());
  EXPECT_TRUE(generator_from_json(Json{{"generator", nullptr}}, "r.json").unversioned());
  EXPECT_EQ(describe(GeneratorId{}), "the unversioned generator (before version 1)");
  for (const Json& bad : {Json{{"generator", 2}}, Json{{"generator", {{"version", -1}}}}, Json{{"generator", {{"version", "2"}}}},
                          Json{{"generator", {{"version", 2}, {"commit", 7}}}}}) {
    try {
      generator_from_json(bad, "runs/x/revisions.jsonl");
      ADD_FAILURE() << "accepted " << bad.dump();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("runs/x/revisions.jsonl"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("generator"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace vxsynth::codegen
