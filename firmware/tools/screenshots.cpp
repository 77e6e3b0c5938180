// screenshots: writes every screen state of sim/screens.h as DIR/NAME.png
// through our rasterizer and PNG encoder (`make screenshots`), and an
// index.md listing them.
#include <cstdio>
#include <string>

#include "raster.h"
#include "screens.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: screenshots DIR\n");
    return 2;
  }
  std::string dir = argv[1], err, index = "| State | What a person sees |\n| --- | --- |\n";
  for (const sim::Screen& s : sim::Screens()) {
    sim::Canvas c;
    c.Draw(sim::Render(s));
    std::string path = dir + "/" + s.name + ".png";
    if (!sim::WriteFileAtomic(path, sim::EncodePng(c), &err)) {
      std::fprintf(stderr, "screenshots: %s\n", err.c_str());
      return 1;
    }
    index += std::string("| ![") + s.name + "](" + s.name + ".png) `" + s.name + "` | " + s.what + " |\n";
    std::printf("%s\n", path.c_str());
  }
  if (!sim::WriteFileAtomic(dir + "/index.md", index, &err)) {
    std::fprintf(stderr, "screenshots: %s\n", err.c_str());
    return 1;
  }
  return 0;
}
