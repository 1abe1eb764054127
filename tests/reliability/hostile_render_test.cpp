// Outputs that were not valid whatever the names held (issue #20, round two): escape sequences reaching
// the terminal, bytes that are not UTF-8 in SVG, a bare CR in an unquoted CSV field, a 100 KB layer
// name padding every table row.
#include "tests/reliability/cli.hpp"

using namespace ridge::reliability::cli;

TEST_CASE("escape sequences, bytes that are not UTF-8 and a bare CR in names never reach an output raw") {
  // A .hw string ends at a CR, so the CR comes in by the file's name, the device's id.
  const fs::path d = fresh("names"), net = d / "n.net", hw = d / "d\rx.hw", svg = d / "r.svg";
  write(net, kNet);
  write(hw, hw_named("evil \x1b[2J\x1b]0;owned\x07 \xff\xfe name"));
  Run r = simulate(q(net) + " " + q(hw) + " --svg " + q(svg));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK(r.out.find('\r') == std::string::npos);
  CHECK(r.out.find('\xff') == std::string::npos);
  const std::string figure = slurp(svg);
  CHECK(figure.find('\xff') == std::string::npos);
  CHECK(figure.find('\x1b') == std::string::npos);
  r = simulate(q(net) + " " + q(hw) + " " + q(hw) + " --format csv");
  REQUIRE(r.status == 0);
  CHECK(r.out.find('\xff') == std::string::npos);
  CHECK(r.out.find('\x1b') == std::string::npos);
  // The CR stays in the id, inside a quoted field.
  CHECK_THAT(r.out, Catch::Contains(",\"d\rx\","));
}

TEST_CASE("a 100 KB layer name is cut with an ellipsis in the table, not padded into every row") {
  const fs::path d = fresh("wide"), net = d / "n.net", hw = d / "d.hw";
  write(net, "network n {\n  input x: [4]\n  return x -> relu as " + std::string(100'000, 'n') + " -> relu -> relu\n}\n");
  write(hw, hw_named("d"));
  const Run r = simulate(q(net) + " " + q(hw));
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.out.size() < 10'000);
  CHECK_THAT(r.out, Catch::Contains("nnn..."));
}

TEST_CASE("escape sequences in a file's name or its text never reach the terminal through a diagnostic") {
  const fs::path d = fresh("diagnostic"), net = d / "n\x1b[2J.net", hw = d / "d.hw";
  write(net, "network n {\n  input x: [4]\n  return x -> relu as a\x1b]0;owned\x07b\n}\n");
  write(hw, hw_named("d"));
  const Run r = simulate(q(net) + " " + q(hw));
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("error:"));
  CHECK(r.err.find('\x1b') == std::string::npos);
  CHECK(r.err.find('\x07') == std::string::npos);
}
