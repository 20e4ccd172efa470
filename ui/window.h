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
  float content_scale() const;  // the monitor's scale, for font sizes
  void size(int& width, int& height) const;
  void framebuffer_size(int& width, int& height) const;
  std::vector<std::string> take_dropped_files();  // paths dropped since the last call
  // Events since the last call, by kind: the explorer redraws only after one (when nothing runs).
  struct Events {
    int keys = 0;    // keys and typed characters
    int others = 0;  // mouse, scroll, resize, focus, expose, dropped files
  };
  Events take_events();
  bool has_events() const { return events_.keys + events_.others > 0; }  // not taken yet

 private:
  GLFWwindow* window_ = nullptr;
  static void note_event(GLFWwindow* window, bool key = false);
  std::vector<std::string> dropped_;
  Events events_;
};

}  // namespace attnscope::ui
