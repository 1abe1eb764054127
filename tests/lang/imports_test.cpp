// `import "PATH"` and network variants (`network b = a(x: 1)`): what another file's blocks and networks
// elaborate to here, where each diagnostic points (the file the mistake is in, the import chain in
// notes), and how cycles, missing files and limits end. Files come from memory through the reader
// parse_network takes, so each case is its own little file system.
#include "lang/parse.hpp"
#include "tests/lang/lang_test_util.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace {

using namespace ridge;

using Files = std::map<std::string, std::string>;

// A reader over `files`; a path it does not hold is unreadable, as read_source says of a missing file.
lang::SourceReader reader(const Files& files) {
  return [files](const std::string& path) {
    if (const auto it = files.find(path); it != files.end()) return it->second;
    throw lang::Error({lang::file_diagnostic(path, lang::diag::kFileUnreadable, "cannot open file: No such file or directory")});
  };
}

ir::Network parse(const Files& files, const std::string& main, const lang::Overrides& overrides = {}) {
  return lang::parse_network(files.at(main), main, overrides, reader(files));
}

std::string error_of(const Files& files, const std::string& main, const lang::Overrides& overrides = {}) {
  try {
    parse(files, main, overrides);
  } catch (const lang::Error& e) {
    return e.what();
  }
  return "";
}

// A two-layer MLP whose block uses the network's parameter `hidden` (as the zoo's blocks do).
const std::string kMlp =
    "block mlp(x) {\n"
    "  return x -> linear(hidden) as fc1 -> relu -> linear(width) as fc2\n"
    "}\n"
    "network mlp_net(width = 8, hidden = 32, depth = 2) {\n"
    "  input x: [width]\n"
    "  for i in 0 .. depth {\n"
    "    x = mlp(x)\n"
    "  }\n"
    "  return x\n"
    "}\n";

}  // namespace

TEST_CASE("a variant is its base network with new defaults: the same layers as the base given those values") {
  const Files files{{"lib/mlp.net", kMlp},
                    {"lib/big.net", "import \"mlp.net\"\nnetwork big = mlp_net(hidden: 128, depth: 3)\n"}};
  const ir::Network big = parse(files, "lib/big.net");
  const ir::Network base = parse(files, "lib/mlp.net", {{"hidden", "128"}, {"depth", "3"}});
  CHECK(big.name == "big");
  CHECK(base.name == "mlp_net");
  CHECK(big.layers == base.layers);
  // 3 blocks of fc1 (8 -> 128), relu, fc2 (128 -> 8) behind the input.
  CHECK(big.layers.size() == 1 + 3 * 3);
  CHECK(test::total_parameters(big) == 3 * ((8 * 128 + 128) + (128 * 8 + 8)));
  // Layers point where they were written: the base file.
  CHECK(big.layers[1].name == "mlp1.fc1");
  CHECK(big.layers[1].origin == "lib/mlp.net:2:15");
  // --set overrides the variant's defaults as it would the base's.
  CHECK(parse(files, "lib/big.net", {{"depth", "1"}}).layers.size() == 1 + 3);
}

TEST_CASE("a variant of a variant takes the nearest default, the rest come from further up") {
  const Files files{{"mlp.net", kMlp},
                    {"big.net", "import \"mlp.net\"\nnetwork big = mlp_net(hidden: 128, depth: 3)\n"},
                    {"big1.net", "import \"big.net\"\nnetwork big1 = big(depth: 1)\n"}};
  const ir::Network n = parse(files, "big1.net");
  CHECK(n.name == "big1");
  CHECK(n.layers == parse(files, "mlp.net", {{"hidden", "128"}, {"depth", "1"}}).layers);
}

TEST_CASE("an imported file's blocks and constants are usable as this file's own") {
  const Files files{{"blocks.net", "expansion = 4\nblock widen(x, c) {\n  return x -> linear(c * expansion) as up\n}\n"},
                    {"net.net", "import \"blocks.net\"\nnetwork n {\n  input x: [16]\n  return widen(x, 2) -> relu\n}\n"}};
  const ir::Network n = parse(files, "net.net");
  REQUIRE(n.layers.size() == 3);
  CHECK(n.layers[1].name == "widen1.up");
  CHECK(n.layers[1].output == ir::Shape{8});
  CHECK(n.layers[1].origin == "blocks.net:3:15");
}

TEST_CASE("imports are relative to the importing file, a file imported along two paths is read once") {
  // main -> a, b; a -> ../common; b -> ./a/../common (the same file): its block is defined once.
  const Files files{{"m/main.net", "import \"a/a.net\"\nimport \"b.net\"\nnetwork n {\n  input x: [4]\n  return twice(x)\n}\n"},
                    {"m/a/a.net", "import \"../common.net\"\n"},
                    {"m/b.net", "import \"./a/../common.net\"\n"},
                    {"m/common.net", "block twice(x) {\n  return add(x, x)\n}\n"}};
  const ir::Network n = parse(files, "m/main.net");
  CHECK(n.layers.size() == 2);
}

TEST_CASE("an import cycle is refused at the import that closes it, with the chain") {
  const Files files{{"a.net", "import \"b.net\"\nnetwork n {\n  input x: [4]\n  return x\n}\n"},
                    {"b.net", "block f(x) {\n  return x\n}\nimport \"c.net\"\n"},
                    {"c.net", "import \"a.net\"\n"}};
  const std::string error = error_of(files, "a.net");
  INFO(error);
  CHECK_THAT(error, Catch::StartsWith("c.net:1:8: error: import cycle: a.net imports b.net imports c.net imports a.net [net-import]\n"
                                      "import \"a.net\"\n       ^\n"));
  // The notes walk back to the file given: c.net was imported by b.net, b.net by a.net.
  CHECK_THAT(error, Catch::Contains("b.net:4:8: note: in the file imported here"));
  CHECK_THAT(error, Catch::Contains("a.net:1:8: note: in the file imported here"));
  // A file importing itself is the shortest cycle.
  CHECK_THAT(error_of({{"s.net", "import \"s.net\"\n"}}, "s.net"), Catch::Contains("import cycle: s.net imports s.net"));
}

TEST_CASE("a missing import, or one that is not a .net file, is an error at its path") {
  const Files files{{"d/a.net", "import \"nope.net\"\nnetwork n {\n  input x: [4]\n  return x\n}\n"}};
  const std::string error = error_of(files, "d/a.net");
  CHECK_THAT(error, Catch::StartsWith("d/a.net:1:8: error: cannot import \"nope.net\" (d/nope.net): cannot open file: "
                                      "No such file or directory [net-import]"));
  CHECK_THAT(error_of({{"a.net", "import \"w.onnx\"\n"}}, "a.net"),
             Catch::StartsWith("a.net:1:8: error: cannot import \"w.onnx\": expected the path of a .net file [net-import]"));
  CHECK_THAT(error_of({{"a.net", "import w.net\n"}}, "a.net"),
             Catch::StartsWith("a.net:1:8: error: expected word in quotes, found 'w.net' [net-syntax]"));
}

TEST_CASE("errors in an imported file name that file, with the import that brought it in") {
  const Files syntax{{"a.net", "import \"lib.net\"\nnetwork n {\n  input x: [4]\n  return x\n}\n"},
                     {"lib.net", "block f(x) {\n  y x\n}\n"}};
  const std::string error = error_of(syntax, "a.net");
  CHECK_THAT(error, Catch::StartsWith("lib.net:2:5: error: expected '=', found 'x' [net-syntax]\n  y x\n    ^\n"
                                      "a.net:1:8: note: in the file imported here\n"));

  // Elaboration errors inside an imported block: the error in the block's file, the call in the notes.
  const Files shapes{{"a.net", "import \"lib.net\"\nnetwork n {\n  input x: [4]\n  return f(x)\n}\n"},
                     {"lib.net", "block f(x) {\n  return x -> conv(8, 3)\n}\n"}};
  const std::string shape_error = error_of(shapes, "a.net");
  INFO(shape_error);
  CHECK_THAT(shape_error, Catch::StartsWith("lib.net:2:15: error: f1.conv1: conv expects"));
  CHECK_THAT(shape_error, Catch::Contains("a.net:4:10: note: block 'f' instantiated here"));
  CHECK_THAT(shape_error, Catch::Contains("a.net:1:8: note: in the file imported here"));
}

TEST_CASE("one namespace for all files: a block or network defined in two is an error naming both") {
  const Files blocks{{"a.net", "import \"lib.net\"\nblock f(x) {\n  return x\n}\nnetwork n {\n  input x: [4]\n  return f(x)\n}\n"},
                     {"lib.net", "block f(x) {\n  return x\n}\n"}};
  CHECK_THAT(error_of(blocks, "a.net"), Catch::StartsWith("lib.net:1:7: error: block 'f' is defined twice (first at a.net:2:7) "
                                                          "[net-definition]"));
  const Files networks{{"a.net", "import \"lib.net\"\nnetwork n {\n  input x: [4]\n  return x\n}\n"},
                       {"lib.net", "network n {\n  input x: [4]\n  return x\n}\n"}};
  CHECK_THAT(error_of(networks, "a.net"), Catch::StartsWith("lib.net:1:9: error: network 'n' is defined twice (first at a.net:2:9)"));
  // An imported file may hold one network or none, never two.
  const Files two{{"a.net", "import \"lib.net\"\nnetwork n {\n  input x: [4]\n  return x\n}\n"},
                  {"lib.net", "network p {\n  input x: [4]\n  return x\n}\nnetwork q {\n  input x: [4]\n  return x\n}\n"}};
  CHECK_THAT(error_of(two, "a.net"), Catch::StartsWith("lib.net:5:1: error: a file holds at most one network; 'p' is already defined"));
}

TEST_CASE("a variant names its base's parameters, each once, and varies a network that exists") {
  const auto variant = [](const std::string& line) {
    return error_of({{"mlp.net", kMlp}, {"v.net", "import \"mlp.net\"\n" + line + "\n"}}, "v.net");
  };
  CHECK_THAT(variant("network v = mlp_net(hiden: 3)"),
             Catch::StartsWith("v.net:2:21: error: network 'mlp_net' has no parameter 'hiden' (did you mean 'hidden'?); "
                               "it has: width, hidden, depth [net-argument]"));
  CHECK_THAT(variant("network v = mlp_net(3)"), Catch::Contains("names each parameter it sets, as `mlp_net(layers: 32)`"));
  CHECK_THAT(variant("network v = mlp_net(depth: 1, depth: 2)"), Catch::Contains("parameter 'depth' is given twice"));
  CHECK_THAT(variant("network v = mlp_net(depth: 1) as w"), Catch::Contains("a network variant has no 'as' label"));
  CHECK_THAT(variant("network v = mlp(depth: 1)"),
             Catch::StartsWith("v.net:2:13: error: 'mlp' is a block; a network variant varies a network [net-definition]"));
  CHECK_THAT(variant("network v = mlp_nt(depth: 1)"),
             Catch::StartsWith("v.net:2:13: error: no network named 'mlp_nt' (did you mean 'mlp_net'?)"));
  CHECK_THAT(variant("network v = mlp_net"),
             Catch::StartsWith("v.net:2:20: error: expected arguments, found end of file [net-syntax]"));
  // Variants that vary each other never end: refused with the chain. (Networks share one namespace, so
  // b.net's variant sees a.net's network without importing it.)
  const Files loop{{"a.net", "import \"b.net\"\nnetwork a = b(depth: 1)\n"}, {"b.net", "import \"c.net\"\nnetwork b = a(depth: 2)\n"},
                   {"c.net", ""}};
  CHECK_THAT(error_of(loop, "a.net"), Catch::StartsWith("b.net:2:13: error: network variants vary each other (a = b = a) [net-recursion]"));
  CHECK_THAT(error_of({{"a.net", "network a = a(depth: 1)\n"}}, "a.net"),
             Catch::StartsWith("a.net:1:13: error: network variants vary each other (a = a) [net-recursion]"));
  // --set on a variant names the variant and its parameters.
  CHECK_THAT(error_of({{"mlp.net", kMlp}, {"v.net", "import \"mlp.net\"\nnetwork v = mlp_net(depth: 1)\n"}}, "v.net", {{"layers", "2"}}),
             Catch::Contains("--set layers=2: network 'v' has no parameter 'layers' (it has: depth, hidden, width)"));
}

TEST_CASE("a chain of imports past the limit ends in an error, not a deep recursion") {
  Files files;
  const int n = 300;
  for (int i = 0; i < n; ++i) files["f" + std::to_string(i) + ".net"] = "import \"f" + std::to_string(i + 1) + ".net\"\n";
  files["f" + std::to_string(n) + ".net"] = "";
  CHECK_THAT(error_of(files, "f0.net"), Catch::Contains("more than 256 files imported for one network [net-limit]"));
}

TEST_CASE("network_parameters and load_network follow imports on disk") {
  const auto dir = std::filesystem::temp_directory_path() / "ridge_imports_test";
  std::filesystem::create_directories(dir / "zoo");
  std::ofstream(dir / "zoo" / "mlp.net") << kMlp;
  std::ofstream(dir / "big.net") << "import \"zoo/mlp.net\"\nnetwork big = mlp_net(hidden: 64)\n";
  const std::string big = (dir / "big.net").string();
  CHECK(lang::network_parameters(big) == std::vector<std::string>{"width", "hidden", "depth"});
  const ir::Network n = lang::load_network(big, {{"depth", "1"}});
  CHECK(n.name == "big");
  CHECK(n.layers[1].output == ir::Shape{64});
  CHECK(n.layers[1].origin == (dir / "zoo" / "mlp.net").lexically_normal().generic_string() + ":2:15");
  std::filesystem::remove_all(dir);
}
