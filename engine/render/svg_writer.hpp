// A small SVG writer for the plots: a document of elements with escaped text, log-scaled axes with
// decade ticks and labelled units, and point markers. Self-contained output (no fonts, scripts or
// external references), so the file opens in any browser and renders with rsvg.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ridge::engine::render::svg {

std::string escape(std::string_view text);   // &, <, >, " and ' as entities; control characters dropped
std::string num(double v);                    // a coordinate: two decimals, no exponent

using Points = std::vector<std::pair<double, double>>;

struct Stroke {
  std::string colour = "#000";
  double width = 1.0;
  std::string dash;   // "" solid, else an SVG dasharray ("6 4")
};

class Document {
 public:
  Document(double width, double height);
  Document& line(double x1, double y1, double x2, double y2, const Stroke& s);
  Document& polyline(const Points& pts, const Stroke& s);
  Document& polygon(const Points& pts, const std::string& fill, const Stroke& s);
  Document& rect(double x, double y, double w, double h, const std::string& fill, const Stroke& s);
  Document& circle(double cx, double cy, double r, const std::string& fill, const Stroke& s);
  // anchor: start|middle|end; rotate in degrees about (x, y).
  Document& text(double x, double y, std::string_view text, double size, std::string_view anchor = "start",
                 std::string_view fill = "#222", double rotate = 0, bool bold = false);
  Document& title(std::string_view tooltip);   // a <title> for the next element group (hover text)
  Document& open_group(std::string_view tooltip = {});
  Document& close_group();
  std::string str() const;   // the document, XML declaration included
  double width() const { return width_; }
  double height() const { return height_; }

 private:
  double width_, height_;
  std::string body_;
};

// A log10 axis from `lo` to `hi` (both decades) mapped to pixels [px_lo, px_hi].
struct LogAxis {
  double lo = 1, hi = 10;
  double px_lo = 0, px_hi = 1;
  double map(double v) const;                 // pixel of v (clamped to the axis' decades)
  std::vector<double> decades() const;        // lo, 10*lo, ..., hi
  // The smallest run of whole decades holding [min, max] (at least one decade).
  static LogAxis fit(double min, double max, double px_lo, double px_hi);
};

// "0.01", "0.1", "1", "10", "100", "1k", "10k", "1M", ..., "1T", "10P": a decade, short.
std::string decade_label(double v);

// The plot area and its axes.
struct Frame {
  double left = 90, top = 60, right = 0, bottom = 0;   // pixels of the plot area
  LogAxis x, y;
};
// Background, grid at decades (minor lines at 2..9), ticks, tick labels and axis titles.
void draw_axes(Document& doc, const Frame& f, std::string_view x_title, std::string_view y_title);

enum class Marker { Circle, Triangle, Square, Diamond, TriangleDown, Plus };
// The marker of series i: six shapes in turn, so with palette() the first 12 series differ in colour
// and no two share both colour and shape.
Marker series_marker(std::size_t i);
void marker(Document& doc, Marker m, double x, double y, double size, const std::string& colour, bool hollow);

// Twelve distinguishable colours (Okabe-Ito's eight, colour-blind safe, then four of Paul Tol's
// muted scheme), cycling after twelve.
std::string palette(std::size_t i);

}  // namespace ridge::engine::render::svg
