#version 330 core
// Colours a heatmap: `positions` holds each cell's place on the colormap (0 .. 1, computed on the
// CPU by ColorScale so screen and exported files agree; NaN marks an empty cell), `lut` is the
// colormap's 256-entry table, and cells set in `outline` get a dark border (high similarity).
in vec2 uv;
out vec4 color;
uniform sampler2D positions;  // R32F, cols x rows, nearest
uniform sampler2D lut;        // RGBA8, 256 x 1 (its alpha unused)
uniform sampler2D outline;    // R8, cols x rows, nearest
uniform vec2 cells;           // cols, rows
uniform float border;         // outline width as a fraction of a cell
uniform int use_outline;

void main() {
  // Output row 0 is the texture's first row, which the UI draws at the top: no flip needed.
  float t = texture(positions, uv).r;
  if (isnan(t)) { color = vec4(0.0); return; }
  color = vec4(texture(lut, vec2((clamp(t, 0.0, 1.0) * 255.0 + 0.5) / 256.0, 0.5)).rgb, 1.0);
  if (use_outline != 0 && texture(outline, uv).r > 0.5) {
    vec2 inside = fract(uv * cells);
    if (min(min(inside.x, inside.y), min(1.0 - inside.x, 1.0 - inside.y)) < border) color = vec4(0.0, 0.0, 0.0, 1.0);
  }
}
