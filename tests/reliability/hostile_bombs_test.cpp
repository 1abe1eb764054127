// Time and memory bombs within the documented limits (issue #20, round two): small files that made
// elaboration deep-copy 10^8 values, build layers of 500,000 inputs, or compute edit distances against
// a megabyte-long name. Each must end, correct or refused, in well under 2 s.
#include "tests/reliability/hostile.hpp"

#include <catch2/catch.hpp>

using namespace ridge;
using reliability::net_error;
using reliability::repeat;
using reliability::seconds;

namespace {

// "[e, e, ..., e]" with n items.
std::string list_of(const std::string& e, int n) {
  std::string s = "[" + e;
  for (int i = 1; i < n; ++i) s += ", " + e;
  return s + "]";
}

}  // namespace

TEST_CASE("four nested 100-item lists (10^8 values if copied) elaborate at once: lists are shared") {
  // 1.6 KB: as file-level constants, and again as network locals.
  const std::string lists = "a = " + list_of("1", 100) + "\nb = " + list_of("a", 100) + "\nc = " + list_of("b", 100) +
                            "\nd = " + list_of("c", 100) + "\n";
  for (const bool global : {true, false}) {
    CAPTURE(global);
    const std::string text = global ? lists + "network n {\n  input x: [4]\n  return x -> linear(len(d) + d[99][99][99][99])\n}\n"
                                    : "network n {\n  input x: [4]\n" + lists + "  e = d\n  f = " + list_of("d", 100) +
                                          "\n  return x -> linear(len(f) + f[99][99][99][99][99])\n}\n";
    std::string error = "unset";
    const double s = seconds([&] { error = net_error(text); });
    CHECK(error.empty());
    CHECK(s < 2.0);
    CHECK(reliability::peak_rss_mib() < reliability::kMaxHostileMib);
    if (error.empty()) CHECK(lang::parse_network(text, "n.net").layers.back().output.back() == 101);
  }
}

TEST_CASE("concat of a 10,000-way split tuple 50 times over, 1000 times, is refused at the fan-in limit") {
  const std::string text = "network n {\n  input x: [10000]\n  t = split(x, 10000)\n  for i in 0 .. 1000 {\n    y = concat(" +
                           repeat("t, ", 49) + "t)\n  }\n  return x\n}\n";
  CHECK(text.size() < 400);
  std::string error;
  const double s = seconds([&] { error = net_error(text); });
  CHECK_THAT(error, Catch::Contains("hostile.net:5:") && Catch::Contains("at most 65536 inputs"));
  CHECK(s < 2.0);
  CHECK(reliability::peak_rss_mib() < reliability::kMaxHostileMib);
}

TEST_CASE("concat of a wide tuple in a loop stops at the bound on op inputs, all layers together") {
  const std::string text = "network n {\n  input x: [10000]\n  t = split(x, 10000)\n  for i in 0 .. 1000 {\n"
                           "    y = concat(t, t, t, t, t)\n  }\n  return x\n}\n";
  std::string error;
  const double s = seconds([&] { error = net_error(text); });
  CHECK_THAT(error, Catch::Contains("hostile.net:5:") && Catch::Contains("more than 1000000 tensor inputs"));
  CHECK(s < 2.0);
  CHECK(reliability::peak_rss_mib() < reliability::kMaxHostileMib);
}

TEST_CASE("a wide tuple passed to a block in a loop stops at the work budget, which counts every item passed") {
  const std::string text = "block f(t) { return t[0] }\nnetwork n {\n  input x: [10000]\n  t = split(x, 10000)\n"
                           "  for i in 0 .. 1000 {\n    y = f(t)\n  }\n  return x\n}\n";
  std::string error;
  const double s = seconds([&] { error = net_error(text); });
  CHECK_THAT(error, Catch::Contains("hostile.net:6:") && Catch::Contains("steps"));
  CHECK(s < 2.0);
  CHECK(reliability::peak_rss_mib() < reliability::kMaxHostileMib);
}

TEST_CASE("a wide tuple within the limits still concatenates") {
  const ir::Network net =
      lang::parse_network("network n {\n  input x: [10000]\n  t = split(x, 10000)\n  return concat(t, t)\n}\n", "n.net");
  CHECK(net.layers.back().inputs.size() == 20000);
  CHECK(net.layers.back().output.front() == 20000);
}

TEST_CASE("a 1.5 MB unknown identifier gets its error at once, without a did-you-mean") {
  const std::string name = "conv" + std::string(1'500'000, 'x');
  for (const std::string& text : {"network n {\n  input x: [4]\n  return x -> " + name + "\n}\n",
                                 "network n {\n  input x: [4]\n  v = " + name + "\n  return x\n}\n"}) {
    std::string error;
    const double s = seconds([&] { error = net_error(text); });
    CHECK_THAT(error, Catch::Contains("hostile.net:3:") && Catch::Contains("unknown"));
    CHECK_THAT(error, !Catch::Contains("did you mean"));
    CHECK(s < 2.0);
    CHECK(reliability::peak_rss_mib() < reliability::kMaxHostileMib);
    // The diagnostic quotes a window of the name, not 1.5 MB of it for the message, the line and the caret.
    CHECK(error.size() < 8000);
  }
  // Short names still get one.
  CHECK_THAT(net_error("network n {\n  input x: [4]\n  return x -> cnv(4, 1)\n}\n"), Catch::Contains("did you mean 'conv'"));
}
