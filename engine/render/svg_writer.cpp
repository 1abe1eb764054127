#include "engine/render/svg_writer.hpp"

#include "engine/render/json_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ridge::engine::render::svg {

std::string escape(std::string_view raw) {
  // Bytes that are not UTF-8 would make the whole document ill-formed: U+FFFD instead.
  const std::string text = valid_utf8(raw);
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters even escaped.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n') out += c;
    }
  }
  return out;
}

std::string num(double v) {
  if (!std::isfinite(v)) v = 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  if (s == "-0.00") s = "0.00";
  return s;
}

namespace {
std::string stroke_attrs(const Stroke& s) {
  std::string a = " stroke=\"" + escape(s.colour) + "\" stroke-width=\"" + num(s.width) + "\"";
  if (!s.dash.empty()) a += " stroke-dasharray=\"" + escape(s.dash) + "\"";
  return a;
}
std::string points_attr(const Points& pts) {
  std::string a;
  for (const auto& [x, y] : pts) {
    if (!a.empty()) a += ' ';
    a.append(num(x)).append(",").append(num(y));
  }
  return a;
}
}  // namespace

Document::Document(double width, double height) : width_(width), height_(height) {}

Document& Document::line(double x1, double y1, double x2, double y2, const Stroke& s) {
  body_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) + "\"" +
           stroke_attrs(s) + "/>\n";
  return *this;
}

Document& Document::polyline(const Points& pts, const Stroke& s) {
  body_ += "<polyline fill=\"none\" points=\"" + points_attr(pts) + "\"" + stroke_attrs(s) +
           " stroke-linejoin=\"round\"/>\n";
  return *this;
}

Document& Document::polygon(const Points& pts, const std::string& fill, const Stroke& s) {
  body_ += "<polygon points=\"" + points_attr(pts) + "\" fill=\"" + escape(fill) + "\"" + stroke_attrs(s) + "/>\n";
  return *this;
}

Document& Document::rect(double x, double y, double w, double h, const std::string& fill, const Stroke& s) {
  body_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" + num(h) +
           "\" fill=\"" + escape(fill) + "\"" + stroke_attrs(s) + "/>\n";
  return *this;
}

Document& Document::circle(double cx, double cy, double r, const std::string& fill, const Stroke& s) {
  body_ += "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"" + num(r) + "\" fill=\"" + escape(fill) +
           "\"" + stroke_attrs(s) + "/>\n";
  return *this;
}

Document& Document::text(double x, double y, std::string_view t, double size, std::string_view anchor,
                         std::string_view fill, double rotate, bool bold) {
  body_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" font-size=\"" + num(size) + "\" text-anchor=\"" +
           escape(anchor) + "\" fill=\"" + escape(fill) + "\"";
  if (bold) body_ += " font-weight=\"bold\"";
  if (rotate != 0) body_ += " transform=\"rotate(" + num(rotate) + " " + num(x) + " " + num(y) + ")\"";
  body_.append(">").append(escape(t)).append("</text>\n");
  return *this;
}

Document& Document::title(std::string_view tooltip) {
  body_ += "<title>" + escape(tooltip) + "</title>\n";
  return *this;
}

Document& Document::open_group(std::string_view tooltip) {
  body_ += "<g>";
  if (!tooltip.empty()) body_ += "<title>" + escape(tooltip) + "</title>";
  body_ += "\n";
  return *this;
}

Document& Document::close_group() {
  body_ += "</g>\n";
  return *this;
}

std::string Document::str() const {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         num(width_) + "\" height=\"" + num(height_) + "\" viewBox=\"0 0 " + num(width_) + " " + num(height_) +
         "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n" + "<rect x=\"0\" y=\"0\" width=\"" +
         num(width_) + "\" height=\"" + num(height_) + "\" fill=\"#ffffff\"/>\n" + body_ + "</svg>\n";
}

double LogAxis::map(double v) const {
  const double a = std::log10(lo), b = std::log10(hi);
  const double t = std::clamp((std::log10(std::max(v, 1e-300)) - a) / (b - a), 0.0, 1.0);
  return px_lo + t * (px_hi - px_lo);
}

std::vector<double> LogAxis::decades() const {
  std::vector<double> d;
  const int a = static_cast<int>(std::lround(std::log10(lo))), b = static_cast<int>(std::lround(std::log10(hi)));
  for (int e = a; e <= b; ++e) d.push_back(std::pow(10.0, e));
  return d;
}

LogAxis LogAxis::fit(double min, double max, double px_lo, double px_hi) {
  if (!(min > 0) || !std::isfinite(min)) min = 1;
  if (!(max > 0) || !std::isfinite(max)) max = min;
  if (max < min) std::swap(min, max);
  // A small epsilon so a value exactly on a decade does not open a new one.
  double a = std::floor(std::log10(min) + 1e-9), b = std::ceil(std::log10(max) - 1e-9);
  if (b <= a) b = a + 1;
  return {std::pow(10.0, a), std::pow(10.0, b), px_lo, px_hi};
}

std::string decade_label(double v) {
  // Built with append(): GCC 12's -Wrestrict misfires on operator+ with short literals here.
  const int e = static_cast<int>(std::lround(std::log10(v)));
  std::string s;
  if (e < 0) {
    s.append("0.");
    s.append(static_cast<std::size_t>(-e - 1), '0');
    s.push_back('1');
    return s;
  }
  static const char* prefix[] = {"", "k", "M", "G", "T", "P", "E"};
  const int group = std::min(e / 3, 6);
  s.push_back('1');
  s.append(static_cast<std::size_t>(e - 3 * group), '0');
  s.append(prefix[group]);
  return s;
}

void draw_axes(Document& doc, const Frame& f, std::string_view x_title, std::string_view y_title) {
  doc.rect(f.left, f.top, f.right - f.left, f.bottom - f.top, "#fcfcfc", {"#444", 1.0, ""});
  const Stroke minor{"#eeeeee", 0.6, ""}, major{"#d0d0d0", 0.8, ""};
  for (const double d : f.x.decades()) {
    if (d < f.x.hi)
      for (int k = 2; k <= 9; ++k) doc.line(f.x.map(d * k), f.top, f.x.map(d * k), f.bottom, minor);
    const double x = f.x.map(d);
    doc.line(x, f.top, x, f.bottom, major);
    doc.line(x, f.bottom, x, f.bottom + 6, {"#444", 1.0, ""});
    doc.text(x, f.bottom + 20, decade_label(d), 12, "middle");
  }
  for (const double d : f.y.decades()) {
    if (d < f.y.hi)
      for (int k = 2; k <= 9; ++k) doc.line(f.left, f.y.map(d * k), f.right, f.y.map(d * k), minor);
    const double y = f.y.map(d);
    doc.line(f.left, y, f.right, y, major);
    doc.line(f.left - 6, y, f.left, y, {"#444", 1.0, ""});
    doc.text(f.left - 9, y + 4, decade_label(d), 12, "end");
  }
  doc.text((f.left + f.right) / 2, f.bottom + 42, x_title, 14, "middle");
  doc.text(f.left - 58, (f.top + f.bottom) / 2, y_title, 14, "middle", "#222", -90);
}

void marker(Document& doc, Marker m, double x, double y, double size, const std::string& colour, bool hollow) {
  const std::string fill = hollow ? "none" : colour;
  const Stroke s{hollow ? colour : "#333", hollow ? 1.6 : 0.6, ""};
  switch (m) {
    case Marker::Circle: doc.circle(x, y, size, fill, s); break;
    case Marker::Triangle:
      doc.polygon({{x, y - size * 1.2}, {x - size * 1.1, y + size * 0.8}, {x + size * 1.1, y + size * 0.8}}, fill, s);
      break;
    case Marker::Square: doc.rect(x - size, y - size, 2 * size, 2 * size, fill, s); break;
    case Marker::Diamond:
      doc.polygon({{x, y - size * 1.3}, {x + size * 1.1, y}, {x, y + size * 1.3}, {x - size * 1.1, y}}, fill, s);
      break;
    case Marker::TriangleDown:
      doc.polygon({{x, y + size * 1.2}, {x - size * 1.1, y - size * 0.8}, {x + size * 1.1, y - size * 0.8}}, fill, s);
      break;
    case Marker::Plus: {
      const double a = size * 1.2, b = size * 0.4;
      doc.polygon({{x - b, y - a}, {x + b, y - a}, {x + b, y - b}, {x + a, y - b}, {x + a, y + b}, {x + b, y + b},
                   {x + b, y + a}, {x - b, y + a}, {x - b, y + b}, {x - a, y + b}, {x - a, y - b}, {x - b, y - b}},
                  fill, s);
      break;
    }
  }
}

Marker series_marker(std::size_t i) {
  static constexpr Marker shapes[] = {Marker::Circle, Marker::Square, Marker::Triangle, Marker::Diamond, Marker::TriangleDown,
                                      Marker::Plus};
  return shapes[i % std::size(shapes)];
}

std::string palette(std::size_t i) {
  static const char* colours[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9",
                                  "#7F7F7F", "#F0E442", "#332288", "#882255", "#44AA99", "#999933"};
  return colours[i % (sizeof colours / sizeof colours[0])];
}

}  // namespace ridge::engine::render::svg
