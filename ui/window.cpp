#include "window.h"

#include <glad/gl.h>
// GLFW after glad: glad provides the GL declarations.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <utility>

#include "base/error.h"

namespace attnscope::ui {
namespace {

std::string glfw_error() {
  const char* description = nullptr;
  glfwGetError(&description);
  return description ? description : "unknown GLFW error";
}

}  // namespace

void Window::note_event(GLFWwindow* w, bool key) {
  Events& e = static_cast<Window*>(glfwGetWindowUserPointer(w))->events_;
  ++(key ? e.keys : e.others);
}

Window::Window(int width, int height, const std::string& title) {
  if (!glfwInit()) throw Error("cannot open a window: " + glfw_error() + " (is there a display? try xvfb-run)");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
  if (!window_) {
    const std::string why = glfw_error();
    glfwTerminate();
    throw Error("cannot create an OpenGL 3.3 core window: " + why);
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(1);
  if (!gladLoadGL(glfwGetProcAddress)) {
    glfwDestroyWindow(window_);
    glfwTerminate();
    throw Error("cannot load the OpenGL 3.3 functions");
  }
  glfwSetWindowUserPointer(window_, this);
  glfwSetDropCallback(window_, [](GLFWwindow* w, int count, const char** paths) {
    auto* self = static_cast<Window*>(glfwGetWindowUserPointer(w));
    for (int i = 0; i < count; ++i) self->dropped_.emplace_back(paths[i]);
    note_event(w);
  });
  // Counted before ImGui installs its own callbacks, which call these after theirs.
  // A key's release changes nothing shown: it waits for the next frame instead of drawing one,
  // which would take the cores from the run the key started (the frame is drawn on the CPU here).
  glfwSetKeyCallback(window_, [](GLFWwindow* w, int, int, int action, int) {
    if (action != GLFW_RELEASE) note_event(w, true);
  });
  glfwSetCharCallback(window_, [](GLFWwindow* w, unsigned int) { note_event(w, true); });
  glfwSetMouseButtonCallback(window_, [](GLFWwindow* w, int, int, int) { note_event(w); });
  glfwSetCursorPosCallback(window_, [](GLFWwindow* w, double, double) { note_event(w); });
  glfwSetScrollCallback(window_, [](GLFWwindow* w, double, double) { note_event(w); });
  glfwSetCursorEnterCallback(window_, [](GLFWwindow* w, int) { note_event(w); });
  glfwSetWindowFocusCallback(window_, [](GLFWwindow* w, int) { note_event(w); });
  glfwSetWindowSizeCallback(window_, [](GLFWwindow* w, int, int) { note_event(w); });
  glfwSetWindowRefreshCallback(window_, [](GLFWwindow* w) { note_event(w); });
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // our settings file keeps what matters
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
}

Window::~Window() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  glfwTerminate();
}

bool Window::should_close() const { return glfwWindowShouldClose(window_); }

float Window::content_scale() const {
  float x = 1, y = 1;
  glfwGetWindowContentScale(window_, &x, &y);
  return x > 0 ? x : 1.0f;
}

void Window::size(int& width, int& height) const { glfwGetWindowSize(window_, &width, &height); }
void Window::framebuffer_size(int& width, int& height) const { glfwGetFramebufferSize(window_, &width, &height); }

std::vector<std::string> Window::take_dropped_files() { return std::exchange(dropped_, {}); }

Window::Events Window::take_events() { return std::exchange(events_, {}); }

}  // namespace attnscope::ui
