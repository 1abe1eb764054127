// The SVGs open in the viewer people use: rendered to PNG by rsvg-convert (librsvg, as GNOME and
// many browsers' test suites use; installed by .ci/setup), the PNG has the SVG's size and is not blank.
// PNG is checked without a decoder: the IHDR chunk gives width and height, and the compressed pixel
// data (IDAT) of a plot is far larger than that of a blank page of the same size.
#include "tests/render/fixtures.hpp"

#include "engine/render/svg_plots.hpp"
#include "engine/render/svg_roofline.hpp"
#include "engine/render/svg_writer.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

using namespace ridge;
namespace fs = std::filesystem;

namespace {

struct Png {
  std::uint32_t width = 0, height = 0;
  std::size_t idat_bytes = 0;
};

std::uint32_t be32(const std::string& s, std::size_t at) {
  return (std::uint32_t(std::uint8_t(s[at])) << 24) | (std::uint32_t(std::uint8_t(s[at + 1])) << 16) |
         (std::uint32_t(std::uint8_t(s[at + 2])) << 8) | std::uint32_t(std::uint8_t(s[at + 3]));
}

Png read_png(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  REQUIRE(s.size() > 33);
  REQUIRE(s.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  Png png;
  // Chunks: length (4), type (4), data, CRC (4). IHDR comes first.
  for (std::size_t at = 8; at + 8 <= s.size();) {
    const std::uint32_t len = be32(s, at);
    const std::string type = s.substr(at + 4, 4);
    if (type == "IHDR") {
      png.width = be32(s, at + 8);
      png.height = be32(s, at + 12);
    }
    if (type == "IDAT") png.idat_bytes += len;
    at += 12 + len;
  }
  return png;
}

// Renders `svg` to PNG at its own size (rsvg-convert's default: 1 px per SVG user unit).
Png render(const std::string& svg, const std::string& name) {
  const fs::path dir = testing::temp_dir();
  const fs::path in = dir / (name + ".svg"), out = dir / (name + ".png");
  std::ofstream(in) << svg;
  const std::string cmd = "rsvg-convert -f png -o '" + out.string() + "' '" + in.string() + "' 2>'" +
                          (dir / (name + ".err")).string() + "'";
  INFO("rsvg-convert (package librsvg2-bin, installed by .ci/setup) must be on PATH");
  REQUIRE(std::system(cmd.c_str()) == 0);
  return read_png(out);
}

// A blank page of the same size, for the non-blank comparison.
std::size_t blank_idat(double w, double h, const std::string& name) {
  return render(engine::render::svg::Document(w, h).str(), name + "-blank").idat_bytes;
}

void check_rendered(const std::string& svg, double w, double h, const std::string& name) {
  const Png png = render(svg, name);
  CHECK(png.width == static_cast<std::uint32_t>(std::lround(w)));
  CHECK(png.height == static_cast<std::uint32_t>(std::lround(h)));
  const std::size_t blank = blank_idat(w, h, name);
  INFO("IDAT bytes: plot " << png.idat_bytes << ", blank " << blank);
  // A white page compresses to almost nothing; lines, markers and text cost tens of kilobytes.
  CHECK(png.idat_bytes > 10 * blank);
}

}  // namespace

TEST_CASE("the VGG-19 roofline on an A100 renders to a non-blank PNG of its size") {
  const auto rl = engine::render::roofline(testing::report("vgg19", "a100-sxm4-40gb", 64, ir::Precision::FP32));
  // A fixed size, whatever its notes (one line under the plot counts them).
  check_rendered(engine::render::roofline_svg(rl), engine::render::kRooflineWidth, engine::render::kRooflineHeight, "roofline");
}

TEST_CASE("a roofline with flagged measured points keeps its size, its notes are printed beside it") {
  const auto r = testing::report("resnet18", "t4", 32, ir::Precision::FP16);
  // Every layer measured impossibly fast: dozens of suspect points, dozens of notes.
  std::vector<engine::render::Measurement> m;
  for (const auto& l : r.layers) m.push_back({l.name, ir::Pass::Forward, 1e-9});
  const auto rl = engine::render::roofline(r, m);
  REQUIRE(rl.notes.size() > 20);
  const std::string svg = engine::render::roofline_svg(rl);
  check_rendered(svg, engine::render::kRooflineWidth, engine::render::kRooflineHeight, "roofline-flagged");
  CHECK_THAT(svg, Catch::Contains("printed with the report, not drawn here"));
}

TEST_CASE("the throughput-vs-batch and latency-vs-FLOPs plots render to non-blank PNGs") {
  std::vector<engine::Report> sweep, nets;
  for (const std::int64_t b : {1, 8, 64, 256}) {
    sweep.push_back(testing::report("resnet50", "a100-sxm4-40gb", b, ir::Precision::FP32));
    sweep.push_back(testing::report("resnet50", "v100-sxm2", b, ir::Precision::FP32));
  }
  for (const char* n : {"alexnet", "vgg16", "resnet18", "resnet50", "mobilenet_v2", "efficientnet_b0"})
    nets.push_back(testing::report(n, "a100-sxm4-40gb", 1, ir::Precision::FP32));
  const auto tput = engine::render::throughput_vs_batch(sweep);
  REQUIRE(tput.series.size() == 4);   // 2 devices x (inference, training)
  for (const auto& s : tput.series) CHECK(s.points.size() == 4);
  check_rendered(engine::render::loglog_svg(tput), engine::render::kPlotWidth, engine::render::kPlotHeight, "tput");
  const auto lat = engine::render::latency_vs_flops(nets);
  REQUIRE(lat.series.size() == 1);
  CHECK(lat.series[0].points.size() == 6);
  check_rendered(engine::render::loglog_svg(lat), engine::render::kPlotWidth, engine::render::kPlotHeight, "latency");
}

TEST_CASE("up to 12 series differ in colour, and no two share colour and marker") {
  std::set<std::string> colours;
  std::set<std::pair<std::string, int>> pairs;
  for (std::size_t i = 0; i < 12; ++i) {
    colours.insert(engine::render::svg::palette(i));
    pairs.insert({engine::render::svg::palette(i), static_cast<int>(engine::render::svg::series_marker(i))});
  }
  CHECK(colours.size() == 12);
  CHECK(pairs.size() == 12);
  // The collision: with eight colours and four markers, series 2 and 10 were both green triangles.
  CHECK(engine::render::svg::palette(2) != engine::render::svg::palette(10));
}

TEST_CASE("configurations that do not fit in memory are drawn hollow and named") {
  // VGG-16 training at batch 1024 needs far more than a T4's 16 GB; inference at batch 1 fits.
  std::vector<engine::Report> sweep;
  for (const std::int64_t b : {1, 1024}) sweep.push_back(testing::report("vgg16", "t4", b, ir::Precision::FP32));
  REQUIRE(sweep.back().totals.fits_train == std::optional<bool>(false));
  REQUIRE(sweep.front().totals.fits_infer == std::optional<bool>(true));
  const auto plot = engine::render::throughput_vs_batch(sweep);
  const std::string svg = engine::render::loglog_svg(plot);
  CHECK_THAT(svg, Catch::Contains("training: does not fit"));
  CHECK_THAT(svg, Catch::Contains("hollow: does not fit"));
}

TEST_CASE("point labels are placed clear of every point and of each other") {
  // Four labelled points crowded into 30 px and an unlabelled one among them: where the default
  // spot (right and above) is taken, the label moves below or to the left.
  const std::vector<std::pair<double, double>> pts{{100, 100}, {100, 112}, {104, 124}, {150, 100}, {108, 106}};
  const std::vector<double> widths{60, 60, 60, 40, 0};
  const auto spots = engine::render::place_labels(pts, widths, 11);
  REQUIRE(spots.size() == pts.size());
  struct Box {
    double x0, y0, x1, y1;
  };
  std::vector<Box> labels;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (widths[i] <= 0) continue;
    const auto& s = spots[i];
    labels.push_back({s.end_anchor ? s.x - widths[i] : s.x, s.y - 11, s.end_anchor ? s.x : s.x + widths[i], s.y + 2});
  }
  auto hits = [](const Box& a, const Box& b) { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1; };
  for (std::size_t a = 0; a < labels.size(); ++a) {
    for (std::size_t b = a + 1; b < labels.size(); ++b) CHECK_FALSE(hits(labels[a], labels[b]));
    for (const auto& [x, y] : pts) CHECK_FALSE(hits(labels[a], Box{x - 4.5, y - 4.5, x + 4.5, y + 4.5}));
  }
}

TEST_CASE("SVG text is escaped and the document is self-contained") {
  engine::render::svg::Document d(100, 50);
  d.text(1, 2, "a<b & \"c\"", 10);
  const std::string s = d.str();
  CHECK(s.find("a&lt;b &amp; &quot;c&quot;") != std::string::npos);
  CHECK(s.find("width=\"100.00\" height=\"50.00\"") != std::string::npos);
  CHECK(s.find("href") == std::string::npos);   // nothing external
}

TEST_CASE("log axes span whole decades and label them briefly") {
  using engine::render::svg::LogAxis;
  const LogAxis a = LogAxis::fit(0.03, 2000, 0, 100);
  CHECK(a.lo == Approx(0.01));
  CHECK(a.hi == Approx(1e4));
  CHECK(a.decades().size() == 7);
  CHECK(a.map(0.01) == Approx(0));
  CHECK(a.map(1e4) == Approx(100));
  CHECK(a.map(1) == Approx(100.0 * 2 / 6));
  CHECK(engine::render::svg::decade_label(0.01) == "0.01");
  CHECK(engine::render::svg::decade_label(1) == "1");
  CHECK(engine::render::svg::decade_label(1e4) == "10k");
  CHECK(engine::render::svg::decade_label(1e12) == "1T");
  CHECK(engine::render::svg::decade_label(1e14) == "100T");
}

namespace {

// Every plotted point's centre in a roofline SVG: the first shape after each point's <title>.
std::vector<std::pair<double, double>> point_centres(const std::string& svg) {
  std::vector<std::pair<double, double>> out;
  auto number_after = [&](std::size_t from, const std::string& key) {
    const std::size_t at = svg.find(key, from);
    return std::stod(svg.substr(at + key.size()));
  };
  for (std::size_t at = svg.find("<g><title>"); at != std::string::npos; at = svg.find("<g><title>", at + 1)) {
    const std::size_t shape = svg.find('<', svg.find("</title>", at) + 8);
    if (svg.compare(shape, 7, "<circle") == 0) {
      out.emplace_back(number_after(shape, "cx=\""), number_after(shape, "cy=\""));
    } else if (svg.compare(shape, 5, "<rect") == 0) {
      out.emplace_back(number_after(shape, "x=\"") + number_after(shape, "width=\"") / 2,
                       number_after(shape, "y=\"") + number_after(shape, "height=\"") / 2);
    } else {   // a polygon: the mean of its corners
      std::istringstream pts(svg.substr(shape + 17, svg.find('"', shape + 17) - shape - 17));
      double sx = 0, sy = 0, n = 0, x = 0, y = 0;
      char comma = 0;
      while (pts >> x >> comma >> y) sx += x, sy += y, ++n;
      out.emplace_back(sx / n, sy / n);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("the roof's and ceilings' labels are placed clear of the points") {
  // Points crowded right under the flat roof and a ceiling, where the labels' first spots are.
  engine::render::Roofline rl;
  rl.title = "crowded";
  rl.roof = {100e12, 1e12, 100, "matrix fp16"};
  rl.ceilings.push_back({"vector fp32", 20e12, 0.0, false});
  for (double ai = 150; ai < 3000; ai *= 1.08)
    for (const double perf : {95e12, 90e12, 19e12, 18e12}) {
      engine::render::RooflinePoint p;
      p.layer = "conv";
      p.intensity = ai;
      p.performance = p.plotted = perf;
      p.layer_roof = 100e12;
      rl.points.push_back(p);
    }
  const std::string svg = engine::render::roofline_svg(rl);
  const auto centres = point_centres(svg);
  REQUIRE(centres.size() == rl.points.size());
  int labels = 0;
  for (const std::string text : {"peak matrix fp16", "vector fp32 20", "ridge point"}) {
    CAPTURE(text);
    const std::size_t at = svg.find(">" + text);
    REQUIRE(at != std::string::npos);
    const std::size_t open = svg.rfind("<text", at);
    const double x = std::stod(svg.substr(svg.find("x=\"", open) + 3));
    const double y = std::stod(svg.substr(svg.find("y=\"", open) + 3));
    const double size = std::stod(svg.substr(svg.find("font-size=\"", open) + 11));
    const bool end = svg.substr(open, at - open).find("text-anchor=\"end\"") != std::string::npos;
    const std::string whole = svg.substr(at + 1, svg.find("</text>", at) - at - 1);
    const double w = engine::render::text_width(whole, size);
    const double x0 = end ? x - w : x, x1 = end ? x : x + w;
    for (const auto& [px, py] : centres) {
      CAPTURE(px, py, x0, x1, y);
      CHECK_FALSE((px + 4 > x0 && px - 4 < x1 && py + 4 > y - size && py - 4 < y + 2));
    }
    ++labels;
  }
  CHECK(labels == 3);
}
