#pragma once
// The GLFW window with its OpenGL 3.3 core context (functions loaded by glad) and the Dear ImGui
// context on it. Created first and destroyed last: everything GL lives between the two.
#include <string>
#include <vector>

struct GLFWwindow;

namespace attnscope::ui {

class Window {
 public:
  Window(int width, int height, const std::string& title);  // throws attnscope::Error
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  GLFWwindow* get() const { return window_; }
  bool should_close() const;
  float content_scale() const;        // the monitor's scale, for font sizes
  void size(int& width, int& height) const;
  void framebuffer_size(int& width, int& height) const;
  std::vector<std::string> take_dropped_files();  // paths dropped since the last call
  // Input and window events (keys, characters, mouse, scroll, resize, focus, expose) since the
  // last call: the explorer redraws only after one, when it is not animating anything.
  int take_events();

 private:
  GLFWwindow* window_ = nullptr;
  static void note_event(GLFWwindow* window);
  std::vector<std::string> dropped_;
  int events_ = 0;
};

}  // namespace attnscope::ui
