#pragma once
// "Export...": the shown figure to PNG (1x to 4x, rendered offscreen by cairo), SVG or PDF.
#include <string>

#include "figures/figure.h"

namespace attnscope::ui {

class ExportDialog {
 public:
  void open(const Figure& figure, const std::string& suggested_name);
  void draw();

 private:
  Figure figure_;
  std::string path_, message_;
  int format_ = 0;
  float scale_ = 2.0f;
  bool open_requested_ = false;
};

}  // namespace attnscope::ui
