// Arbitrary router graph, read from a file or given inline (imported systems, custom designs).
// Routing is the engine's generic table-based minimal routing (all-pairs BFS).
//
// Keys: file       path of an edge list or a JSON file (JSON if the name ends in .json or the
//                  first non-blank character is '{')
//       routers, links, terminals   the same graph inline: links = [u0, v0, u1, v1, ...]
//       terminals  terminals per router: one value for all routers (default 1), or (inline
//                  only) one per router; a file's own terminal data take precedence
//
// Edge list: one link per line "u v" or "u v class" (router ids from 0; repeat a line for
// parallel links; class is a channel-class name, default "link"). '#' starts a comment, except
// the directives
//     # routers R         number of routers (default: largest id + 1)
//     # terminals n       terminals on every router without its own line
//     # terminals r n     terminals on router r
// JSON: {"routers": R, "links": [[u, v], [u, v, "class"], ...], "terminals": n or [n_0, ...]}
// ("routers" optional as above).
// Every error names topology.file (or the inline key) and the line number. The graph must be
// connected, without self-loops; routers may have zero terminals.
// Bounds (so no input can crash or exhaust the reader): the file must be a regular file of at
// most kMaxFileBytes; JSON nests at most kMaxJsonDepth levels; every integer fits in int64 and
// every router id and count is checked against the limits below before it is used.
// Coordinates: none. Classes: "link" plus any named in the file.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>

#include "topology_registry.hpp"

namespace flitsim {

namespace {

constexpr int64_t kMaxFileBytes = int64_t(1) << 28;  // 256 MiB: far beyond any real system
constexpr int kMaxJsonDepth = 16;                     // the format needs 3
constexpr int64_t kMaxRouters = int64_t(1) << 24;
constexpr int64_t kMaxNodes = int64_t(1) << 26;
constexpr int64_t kMaxPorts = int64_t(1) << 30;       // ports are indexed by int32_t

struct GraphSpec {
  int64_t routers = -1;
  struct Link {
    int64_t u, v;
    std::string cls;
    int line;
  };
  std::vector<Link> links;
  int64_t default_terms = -1;
  std::map<int64_t, std::pair<int64_t, int>> terms;  // router -> (count, line)
  std::vector<int64_t> term_list;                      // JSON / inline per-router list
};

// ---- a minimal JSON reader: objects, arrays, integers, strings, true/false/null ----
class Json {
 public:
  enum Kind { Null, Int, Str, Arr, Obj };
  Kind kind = Null;
  int64_t i = 0;
  std::string s;
  std::vector<Json> arr;
  std::map<std::string, Json> obj;
  int line = 1;
};

class JsonParser {
 public:
  JsonParser(const std::string& text, const Params& prm, const std::string& path)
      : t_(text), prm_(prm), path_(path) {}
  Json parse() {
    Json v = value(0);
    ws();
    if (pos_ != t_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    prm_.fail("file", path_ + " line " + std::to_string(line_) + ": " + what);
  }
  void ws() {
    while (pos_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[pos_]))) line_ += t_[pos_++] == '\n';
  }
  // Recursive descent, bounded by kMaxJsonDepth so that deep nesting is an error, not a
  // stack overflow.
  Json value(int depth) {
    ws();
    if (pos_ >= t_.size()) fail("unexpected end of file");
    if (depth > kMaxJsonDepth) fail("nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    Json v;
    v.line = line_;
    char c = t_[pos_];
    if (c == '{') {
      v.kind = Json::Obj, ++pos_;
      ws();
      if (peek('}')) return ++pos_, v;
      for (;;) {
        ws();
        if (!peek('"')) fail("expected a quoted key");
        std::string key = str();
        ws();
        expect(':');
        v.obj[key] = value(depth + 1);
        ws();
        if (peek('}')) return ++pos_, v;
        expect(',');
      }
    }
    if (c == '[') {
      v.kind = Json::Arr, ++pos_;
      ws();
      if (peek(']')) return ++pos_, v;
      for (;;) {
        v.arr.push_back(value(depth + 1));
        ws();
        if (peek(']')) return ++pos_, v;
        expect(',');
      }
    }
    if (c == '"') return v.kind = Json::Str, v.s = str(), v;
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      size_t end = pos_ + 1;
      while (end < t_.size() && std::isdigit(static_cast<unsigned char>(t_[end]))) ++end;
      if (end < t_.size() && (t_[end] == '.' || t_[end] == 'e' || t_[end] == 'E')) fail("numbers must be integers");
      const std::string digits = t_.substr(pos_, end - pos_);
      try {
        size_t used = 0;
        v.kind = Json::Int, v.i = std::stoll(digits, &used);
        if (used != digits.size()) throw std::invalid_argument(digits);
      } catch (const std::exception&) {
        fail("\"" + digits.substr(0, 40) + "\" is not an integer in [-2^63, 2^63)");
      }
      pos_ = end;
      return v;
    }
    for (const char* word : {"true", "false", "null"})
      if (t_.compare(pos_, std::strlen(word), word) == 0) {
        pos_ += std::strlen(word);
        if (word[0] != 'n') v.kind = Json::Int, v.i = word[0] == 't';
        return v;
      }
    fail(std::string("unexpected character '") + c + "'");
  }
  std::string str() {
    ++pos_;
    std::string out;
    while (pos_ < t_.size() && t_[pos_] != '"') {
      if (t_[pos_] == '\n') fail("unterminated string");
      if (t_[pos_] == '\\' && pos_ + 1 < t_.size()) ++pos_;
      out += t_[pos_++];
    }
    if (pos_ >= t_.size()) fail("unterminated string");
    ++pos_;
    return out;
  }
  bool peek(char c) const { return pos_ < t_.size() && t_[pos_] == c; }
  void expect(char c) {
    if (pos_ >= t_.size()) fail("unexpected end of file");
    if (!peek(c)) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  const std::string& t_;
  const Params& prm_;
  const std::string& path_;
  size_t pos_ = 0;
  int line_ = 1;
};

void read_json(const std::string& text, const std::string& path, const Params& prm, GraphSpec& g) {
  Json root = JsonParser(text, prm, path).parse();
  auto bad = [&](int line, const std::string& what) {
    prm.fail("file", path + " line " + std::to_string(line) + ": " + what);
  };
  if (root.kind != Json::Obj) bad(root.line, "the top level must be an object");
  for (auto& [key, v] : root.obj)
    if (key != "routers" && key != "links" && key != "terminals")
      bad(v.line, "unknown key \"" + (key.size() <= 40 ? key : key.substr(0, 40) + "...") +
                      "\" (known: routers, links, terminals)");
  if (root.obj.count("routers")) {
    const Json& r = root.obj["routers"];
    if (r.kind != Json::Int) bad(r.line, "\"routers\" must be an integer");
    if (r.i < 1 || r.i > kMaxRouters) bad(r.line, "\"routers\" must be in [1, 2^24], got " + std::to_string(r.i));
    g.routers = r.i;
  }
  if (!root.obj.count("links")) bad(root.line, "missing \"links\"");
  const Json& links = root.obj["links"];
  if (links.kind != Json::Arr) bad(links.line, "\"links\" must be a list of [u, v] pairs");
  for (const Json& l : links.arr) {
    if (l.kind != Json::Arr || l.arr.size() < 2 || l.arr.size() > 3 || l.arr[0].kind != Json::Int ||
        l.arr[1].kind != Json::Int || (l.arr.size() == 3 && l.arr[2].kind != Json::Str))
      bad(l.line, "a link must be [u, v] or [u, v, \"class\"] with integer router ids");
    g.links.push_back({l.arr[0].i, l.arr[1].i, l.arr.size() == 3 ? l.arr[2].s : "link", l.line});
  }
  if (root.obj.count("terminals")) {
    const Json& t = root.obj["terminals"];
    if (t.kind == Json::Int) {
      if (t.i < 0 || t.i > kMaxNodes) bad(t.line, "\"terminals\" must be in [0, 2^26], got " + std::to_string(t.i));
      g.default_terms = t.i;
    } else if (t.kind == Json::Arr) {
      for (const Json& x : t.arr) {
        if (x.kind != Json::Int) bad(x.line, "\"terminals\" entries must be integers");
        if (x.i < 0 || x.i > kMaxNodes) bad(x.line, "terminal counts must be in [0, 2^26], got " + std::to_string(x.i));
        g.term_list.push_back(x.i);
      }
    } else {
      bad(t.line, "\"terminals\" must be an integer or a list of integers");
    }
  }
}

void read_edge_list(const std::string& text, const std::string& path, const Params& prm, GraphSpec& g) {
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  auto bad = [&](const std::string& what) {
    // A bad line is echoed, but never more than 80 bytes of it (a file may hold one 20 MB line).
    const std::string shown = raw.size() <= 80 ? raw : raw.substr(0, 80) + "...\" (" + std::to_string(raw.size()) + " bytes";
    prm.fail("file", path + " line " + std::to_string(line) + ": " + what + " (got \"" + shown +
                         (raw.size() <= 80 ? "\")" : ")"));
  };
  // An integer token in [lo, hi]; what names it in the message.
  auto integer = [&](const std::string& tok, int64_t lo, int64_t hi, const std::string& what) -> int64_t {
    size_t used = 0;
    int64_t v = 0;
    bool range = false;
    try {
      v = std::stoll(tok, &used);
    } catch (const std::out_of_range&) {
      range = true;
    } catch (...) {
      used = 0;
    }
    if (!range && (used != tok.size() || tok.empty())) bad("\"" + tok.substr(0, 40) + "\" is not an integer");
    if (range || v < lo || v > hi)
      bad(what + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + tok.substr(0, 40));
    return v;
  };
  // Router ids: negative ones get the message the format always gave.
  auto router_id = [&](const std::string& tok) -> int64_t {
    if (!tok.empty() && tok[0] == '-') {
      integer(tok, INT64_MIN, INT64_MAX, "a router id");  // "not an integer" when it is not one
      bad("router ids must be >= 0");
    }
    return integer(tok, 0, kMaxRouters - 1, "a router id");
  };
  while (std::getline(in, raw)) {
    ++line;
    std::istringstream ls(raw);
    std::vector<std::string> tok;
    for (std::string w; ls >> w;) tok.push_back(w);
    if (tok.empty()) continue;
    if (tok[0][0] == '#') {
      if (tok[0].size() > 1) tok[0] = tok[0].substr(1), tok.insert(tok.begin(), "#");
      if (tok.size() >= 2 && tok[1] == "routers") {
        if (tok.size() != 3) bad("expected \"# routers R\"");
        g.routers = integer(tok[2], 1, kMaxRouters, "the number of routers");
      } else if (tok.size() >= 2 && tok[1] == "terminals") {
        if (tok.size() == 3) {
          g.default_terms = integer(tok[2], 0, kMaxNodes, "a terminal count");
        } else if (tok.size() == 4) {
          const int64_t r = integer(tok[2], 0, INT64_MAX, "a router id");
          g.terms[r] = {integer(tok[3], 0, kMaxNodes, "a terminal count"), line};
        } else {
          bad("expected \"# terminals n\" or \"# terminals r n\"");
        }
      }
      continue;
    }
    if (tok.size() > 3 || tok.size() < 2) bad("expected \"u v\" or \"u v class\"");
    g.links.push_back({router_id(tok[0]), router_id(tok[1]), tok.size() == 3 ? tok[2] : "link", line});
  }
}

// The whole file, refused unless it is a regular file of at most kMaxFileBytes (a directory,
// a device such as /dev/zero or a FIFO would otherwise read forever or say nothing useful).
std::string read_bounded_file(const std::string& path, const Params& prm) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) prm.fail("file", "cannot open \"" + path + "\": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) prm.fail("file", "\"" + path + "\" is not a regular file");
  if (st.st_size > kMaxFileBytes)
    prm.fail("file", "\"" + path + "\" has " + std::to_string(st.st_size) + " bytes; at most " +
                         std::to_string(kMaxFileBytes) + " are read");
  std::ifstream f(path, std::ios::binary);
  if (!f) prm.fail("file", "cannot open \"" + path + "\"");
  std::string text(size_t(st.st_size), '\0');
  f.read(text.data(), st.st_size);
  text.resize(size_t(f.gcount()));
  if (f.peek() != std::ifstream::traits_type::eof())
    prm.fail("file", "\"" + path + "\" grew while it was read");
  return text;
}

// Root of x's set, halving paths on the way (iterative: a 10^7-router path must not recurse).
int64_t find_root(std::vector<int64_t>& parent, int64_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

Topology build_graph(const Params& prm) {
  GraphSpec g;
  if (prm.has("file")) {
    if (prm.has("links")) prm.fail("links", "give either file or links, not both");
    const std::string path = prm.get_str("file");
    const std::string text = read_bounded_file(path, prm);
    size_t first = text.find_first_not_of(" \t\r\n");
    bool json = (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0) ||
                (first != std::string::npos && text[first] == '{');
    if (json) read_json(text, path, prm, g);
    else read_edge_list(text, path, prm, g);
  } else {
    const std::vector<int64_t> flat = prm.get_ints("links");
    if (flat.size() % 2 != 0) prm.fail("links", "must be a flat list [u0, v0, u1, v1, ...] of even length");
    for (size_t i = 0; i < flat.size(); i += 2) g.links.push_back({flat[i], flat[i + 1], "link", int(i / 2)});
    if (prm.has("routers")) g.routers = prm.get_int("routers");
    if (prm.has("routers") && (g.routers < 1 || g.routers > kMaxRouters))
      prm.fail("routers", "must be in [1, 2^24], got " + std::to_string(g.routers));
    std::vector<int64_t> terms = prm.get_ints("terminals", {1});
    if (terms.size() > 1) g.term_list = terms;
  }
  const bool inline_graph = !prm.has("file");
  auto fail_at = [&](int line, const std::string& what) {
    if (inline_graph) prm.fail("links", "link " + std::to_string(line) + ": " + what);
    prm.fail("file", prm.get_str("file") + " line " + std::to_string(line) + ": " + what);
  };
  if (g.default_terms < 0) {
    std::vector<int64_t> t = prm.get_ints("terminals", {1});
    g.default_terms = t.size() == 1 ? t[0] : 1;
  }
  if (g.default_terms < 0 || g.default_terms > kMaxNodes)
    prm.fail("terminals", "must be in [0, 2^26], got " + std::to_string(g.default_terms));
  int64_t maxid = -1;
  for (auto& l : g.links) {
    if (l.u < 0 || l.v < 0) fail_at(l.line, "router ids must be >= 0");
    if (l.u >= kMaxRouters || l.v >= kMaxRouters) fail_at(l.line, "router ids must be < 2^24");
    if (l.u == l.v) fail_at(l.line, "self-loop at router " + std::to_string(l.u));
    maxid = std::max({maxid, l.u, l.v});
  }
  if (g.routers < 0) g.routers = std::max<int64_t>(maxid + 1, int64_t(g.term_list.size()));
  const std::string rkey = inline_graph ? "routers" : "file";
  if (g.routers < 1) prm.fail(rkey, "the graph has no routers");
  if (g.routers > kMaxRouters) prm.fail(rkey, "more than 2^24 routers");
  if (maxid >= g.routers)
    prm.fail(rkey, "router id " + std::to_string(maxid) + " is out of range (routers = " + std::to_string(g.routers) + ")");
  if (!g.term_list.empty() && int64_t(g.term_list.size()) != g.routers)
    prm.fail(inline_graph ? "terminals" : "file", "terminal list has " + std::to_string(g.term_list.size()) +
                                                     " entries for " + std::to_string(g.routers) + " routers");
  std::vector<int64_t> terms(g.routers, g.default_terms);
  for (size_t r = 0; r < g.term_list.size(); ++r) terms[r] = g.term_list[r];
  for (auto& [r, cl] : g.terms) {
    if (r < 0 || r >= g.routers) fail_at(cl.second, "terminal line for router " + std::to_string(r) + " out of range");
    terms[r] = cl.first;
  }
  int64_t total = 0;
  for (int64_t x : terms) {
    if (x < 0 || x > kMaxNodes) prm.fail(inline_graph ? "terminals" : "file", "terminal counts must be in [0, 2^26]");
    total += x;  // at most 2^24 routers x 2^26: no overflow
  }
  if (total == 0) prm.fail(inline_graph ? "terminals" : "file", "the graph has no terminals");
  if (total > kMaxNodes) prm.fail(inline_graph ? "terminals" : "file", "more than 2^26 nodes");
  if (total + 2 * int64_t(g.links.size()) > kMaxPorts)
    prm.fail(rkey, "more than 2^30 ports (2 per link plus 1 per terminal)");
  // Connectivity (union-find) before building, so the error names the input.
  std::vector<int64_t> parent(g.routers);
  for (int64_t r = 0; r < g.routers; ++r) parent[r] = r;
  for (auto& l : g.links) parent[find_root(parent, l.u)] = find_root(parent, l.v);
  for (int64_t r = 1; r < g.routers; ++r)
    if (find_root(parent, r) != find_root(parent, 0))
      prm.fail(rkey, "the graph is disconnected (router " + std::to_string(r) + " cannot reach router 0)");
  std::vector<int64_t> degree(g.routers, 0);
  for (auto& l : g.links) ++degree[l.u], ++degree[l.v];
  for (int64_t r = 0; r < g.routers; ++r)
    if (degree[r] + terms[r] > 4096) prm.fail(rkey, "router " + std::to_string(r) + " has more than 4096 ports");

  const int32_t R = int32_t(g.routers);
  TopologyBuilder b("graph", R);
  b.add_class("link");
  for (int32_t r = 0; r < R; ++r)
    for (int64_t t = 0; t < terms[r]; ++t) b.add_terminal(r);
  for (auto& l : g.links) {
    if (b.topo().class_index(l.cls) < 0 && b.topo().class_names.size() >= 127)
      fail_at(l.line, "more than 126 link classes");
    b.add_link(int32_t(l.u), int32_t(l.v), b.add_class(l.cls));
  }
  Topology t = b.finish();
  t.attrs["links"] = int64_t(g.links.size());
  return t;
}

}  // namespace

FLITSIM_REGISTER_TOPOLOGY(graph, build_graph, "file", "routers", "links", "terminals")

}  // namespace flitsim
