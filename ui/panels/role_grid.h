#pragma once
// The overview's role grid (METHOD.md, "Head roles"): one cell per head, layers across and heads
// down, coloured by the head's strongest role, or by one role's score when that role is picked in
// the legend (each role's scores one click away); hovering a cell lists all its scores, clicking it
// opens the head. Each layer's sink rate is in its column's tooltip, the model's above the grid.
#include "panels/panel_context.h"

namespace attnscope::ui {

class RoleGrid {
 public:
  // Draws under the overview's controls when the snapshot has its roles (a line why not otherwise).
  void draw(const PanelContext& context, ViewState& state, PanelActions& actions);

 private:
  void draw_legend();
  int shown_ = -1;  // -1: every head's strongest role; else the index in kHeadRoles of the role whose score is shown
};

}  // namespace attnscope::ui
