#include "screenshot.h"

#include <glad/gl.h>
#include <stb_image_write.h>

#include <cstdint>
#include <filesystem>
#include <vector>

#include "base/error.h"
#include "base/atomic_file.h"

namespace attnscope::ui {

std::vector<uint8_t> read_back_buffer(int width, int height) {
  std::vector<uint8_t> pixels(static_cast<size_t>(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  return pixels;
}

void save_screenshot(const std::string& path, int width, int height) {
  const std::vector<uint8_t> pixels = read_back_buffer(width, height);
  // GL's rows start at the bottom; PNG's at the top.
  std::vector<uint8_t> flipped(pixels.size());
  const size_t row = static_cast<size_t>(width) * 4;
  for (int y = 0; y < height; ++y) std::copy_n(&pixels[(height - 1 - y) * row], row, &flipped[y * row]);
  for (size_t k = 3; k < flipped.size(); k += 4) flipped[k] = 255;
  std::string bytes;
  stbi_write_png_to_func([](void* context, void* data,
                            int size) { static_cast<std::string*>(context)->append(static_cast<char*>(data), size); },
                         &bytes, width, height, 4, flipped.data(), static_cast<int>(row));
  if (bytes.empty()) throw Error(path + ": the screenshot could not be encoded");
  write_file_atomically(path, bytes);
}

}  // namespace attnscope::ui
