// Valid input that was refused or mixed up because of names: automatic layer names that collided,
// inputs with the same declared name merged. Issue #20, round two.
#include "tests/reliability/hostile.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace ridge;
using reliability::net_error;
using reliability::repeat;

TEST_CASE("automatic names never collide: relu6 then 61 relus") {
  const std::string text = "network n {\n  input x: [4]\n  x = x -> relu6\n" + repeat("  x = x -> relu\n", 61) + "  return x\n}\n";
  CHECK(net_error(text).empty());
  const ir::Network net = lang::parse_network(text, "n.net");
  std::set<std::string> names;
  for (const auto& l : net.layers) CHECK(names.insert(l.name).second);
  CHECK(names.count("relu6_1"));
  CHECK(names.count("relu61"));
}

TEST_CASE("automatic names never collide: block b1 called 11 times and block b11") {
  const std::string text = "block b1(x) { return x -> relu }\nblock b11(x) { return x -> relu }\nblock b_(x) { return x -> relu }\n"
                           "block b(x) { return x -> relu }\n"
                           "network n {\n  input x: [4]\n" + repeat("  x = b1(x)\n", 11) + "  x = b11(x)\n" +
                           repeat("  x = b_(x)\n", 11) + repeat("  x = b(x)\n", 12) + "  return x\n}\n";
  CHECK(net_error(text).empty());
  const ir::Network net = lang::parse_network(text, "n.net");
  std::set<std::string> names;
  for (const auto& l : net.layers) CHECK(names.insert(l.name).second);
  CHECK(names.count("b1_11.relu1"));
  CHECK(names.count("b11_1.relu1"));
  CHECK(names.count("b__11.relu1"));
  CHECK(names.count("b11.relu1"));
}
