// --set name=value replaces a network parameter's default.
#include "tests/lang/lang_test_util.hpp"

#include <catch2/catch.hpp>

using namespace ridge;

TEST_CASE("overriding classes=10 with --set changes resnet18's last linear layer and its parameter count") {
  const ir::Network n = lang::load_network(RIDGE_MODELS_DIR "/resnet18.net", {{"classes", "10"}});
  const ir::Layer& last = n.layers[n.output];
  CHECK(last.attrs.i("out") == 10);
  CHECK(last.output == ir::Shape{10});
  // 11,689,512 less the linear layer's 990 dropped rows of 512 weights and 1 bias each.
  CHECK(test::total_parameters(n) == 11'689'512 - 990 * 513);
}

TEST_CASE("overrides given with --set take numbers and booleans") {
  const std::string text = "network n(w = 1.0, wide = false) {\n input x: [8]\n"
                           " return x -> linear(wide ? 16 * w : 4)\n}";
  CHECK(lang::parse_network(text, "n.net").layers.back().attrs.i("out") == 4);
  CHECK(lang::parse_network(text, "n.net", {{"wide", "true"}}).layers.back().attrs.i("out") == 16);
  CHECK(lang::parse_network(text, "n.net", {{"wide", "true"}, {"w", "0.5"}}).layers.back().attrs.i("out") == 8);
}

TEST_CASE("an override of an unknown parameter or a value that is not a literal is an error") {
  const std::string text = "network n(w = 1.0) {\n input x: [8]\n return x -> linear(8)\n}";
  const std::string unknown = test::error_of(text, {{"classes", "10"}});
  CHECK_THAT(unknown, Catch::StartsWith("bad.net:1:9: error: --set classes=10: network 'n' has no parameter 'classes'"));
  CHECK_THAT(unknown, Catch::Contains("(it has: w)"));
  const std::string bad = test::error_of(text, {{"w", "wide"}});
  CHECK_THAT(bad, Catch::StartsWith("bad.net:1:11: error: --set w=wide: expected a number or true/false"));
  CHECK_THAT(test::error_of(text, {{"w", "nan"}}), Catch::Contains("expected a number"));
}

TEST_CASE("network_parameters lists what --set may name, in declaration order, without elaborating") {
  using V = std::vector<std::string>;
  // models/bert_base.net's header: bert_base(seq_len = 128, layers = 12, hidden = 768, ...).
  const V bert = lang::network_parameters(RIDGE_MODELS_DIR "/bert_base.net");
  REQUIRE(bert.size() >= 4);
  CHECK(V(bert.begin(), bert.begin() + 4) == V{"seq_len", "layers", "hidden", "heads"});
  // resnet18 takes `classes` only; a block's parameters are not the network's.
  CHECK(lang::network_parameters(RIDGE_MODELS_DIR "/resnet18.net") == V{"classes"});
  CHECK_THROWS_AS(lang::network_parameters("/nonexistent/x.net"), lang::Error);
}
