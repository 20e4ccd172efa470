#include "fonts.h"

#include <fontconfig/fontconfig.h>
#include <imgui.h>

#include <memory>

namespace attnscope::ui {

std::string find_font_file(const std::string& pattern) {
  FcConfig* config = FcInitLoadConfigAndFonts();
  if (!config) return "";
  std::string file;
  FcPattern* pat = FcNameParse(reinterpret_cast<const FcChar8*>(pattern.c_str()));
  FcConfigSubstitute(config, pat, FcMatchPattern);
  FcDefaultSubstitute(pat);
  FcResult result = FcResultNoMatch;
  if (FcPattern* match = FcFontMatch(config, pat, &result)) {
    FcChar8* path = nullptr;
    FcChar8* family = nullptr;
    // fontconfig always answers with something; keep it only if it is the family asked for.
    if (FcPatternGetString(match, FC_FILE, 0, &path) == FcResultMatch &&
        FcPatternGetString(match, FC_FAMILY, 0, &family) == FcResultMatch &&
        pattern.rfind(reinterpret_cast<const char*>(family), 0) == 0)
      file = reinterpret_cast<const char*>(path);
    FcPatternDestroy(match);
  }
  FcPatternDestroy(pat);
  FcConfigDestroy(config);
  return file;
}

Fonts load_fonts(float scale) {
  Fonts fonts;
  ImGuiIO& io = ImGui::GetIO();
  for (const char* family : {"DejaVu Sans", "Noto Sans"}) {
    fonts.file = find_font_file(family);
    if (!fonts.file.empty()) break;
  }
  // Latin (with the byte-level BPE's space mark U+0120), Greek, Cyrillic, general punctuation,
  // arrows (a piece's line break, tab and carriage return, readable_piece), mathematical operators
  // (the >= of clipped scales), control pictures (a piece's spaces, U+2423), box and block elements
  // (the SentencePiece word mark U+2581), and the replacement character.
  static const ImWchar ranges[] = {0x0020, 0x024F, 0x0370, 0x03FF, 0x0400, 0x04FF, 0x2000, 0x206F, 0x2190,
                                   0x22FF, 0x2423, 0x2423, 0x2500, 0x25FF, 0xFFFD, 0xFFFD, 0};
  if (!fonts.file.empty()) {
    fonts.normal = io.Fonts->AddFontFromFileTTF(fonts.file.c_str(), 15.0f * scale, nullptr, ranges);
    fonts.large = io.Fonts->AddFontFromFileTTF(fonts.file.c_str(), 26.0f * scale, nullptr, ranges);
  }
  if (!fonts.normal) {
    fonts.file.clear();
    ImFontConfig config;
    config.SizePixels = 13.0f * scale;
    fonts.normal = io.Fonts->AddFontDefault(&config);
    config.SizePixels = 22.0f * scale;
    fonts.large = io.Fonts->AddFontDefault(&config);
  }
  return fonts;
}

}  // namespace attnscope::ui
