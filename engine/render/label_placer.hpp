// Where text goes on a plot so that it covers no point and no other label: the plots' one label
// machinery (point labels in svg_plots, roof and ceiling labels in svg_roofline).
//
//   LabelPlacer placer;
//   for (auto [x, y] : points) placer.avoid_point(x, y);
//   LabelSpot s = placer.place({{x0, y0, false}, {x1, y1, true}}, text_width(text, 11), 11);
#pragma once

#include <string_view>
#include <vector>

namespace ridge::engine::render {

// A text's anchor: its baseline's left end, or its right end where end_anchor (text-anchor "end").
struct LabelSpot {
  double x = 0, y = 0;
  bool end_anchor = false;
};

// About how wide `text` is at `size` px in the plots' sans-serif (DejaVu Sans: 0.56 em a character).
double text_width(std::string_view text, double size);

class LabelPlacer {
 public:
  // A marker at (x, y) px that no label may cover.
  void avoid_point(double x, double y);
  // The first of `spots` where a `width` x `height` px label covers nothing placed or avoided; where
  // none is clear, the one that covers least (the first among equals). The label's box is then kept
  // clear of later labels. `spots` must not be empty.
  LabelSpot place(const std::vector<LabelSpot>& spots, double width, double height);

 private:
  struct Box {
    double x0, y0, x1, y1;
    bool hits(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  };
  static Box box_of(const LabelSpot& s, double width, double height);
  std::vector<Box> taken_;
};

}  // namespace ridge::engine::render
