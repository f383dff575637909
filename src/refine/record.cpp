#include "refine/record.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace vxsynth::refine {

namespace fs = std::filesystem;

namespace {

Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Json without_time(Json j) {
  j.erase("at");
  return j;
}

// Complete lines of the file and the byte length they cover; a last line without '\n' (a
// write cut by a kill) or one that does not parse is left out.
std::vector<Json> complete_lines(const std::string& path, std::size_t* good_bytes) {
  std::vector<Json> out;
  *good_bytes = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::size_t pos = 0;
  int number = 0;
  while (pos < text.size()) {
    const auto nl = text.find('\n', pos);
    if (nl == std::string::npos) break;  // torn tail
    ++number;
    try {
      out.push_back(Json::parse(text.substr(pos, nl - pos)));
    } catch (const std::exception& e) {
      throw InputError(path, "line " + std::to_string(number), std::string("not JSON: ") + e.what());
    }
    pos = nl + 1;
    *good_bytes = pos;
  }
  return out;
}

}  // namespace

Json RevisionRecord::to_json() const {
  Json j{{"schema", schema_id(kRevisionKind, kRevisionVersion)},
         {"chain", chain},
         {"revision", revision},
         {"parent", parent >= 0 ? Json(parent) : Json(nullptr)},
         {"round", round},
         {"kind", kind}};
  Json mv = Json::array();
  for (const auto& m : moves) mv.push_back(design::move_to_json(m));
  j["moves"] = mv;
  j["move"] = moves.empty() ? std::string(kind == "start" ? "start" : "") : design::to_string(moves);
  j["targets"] = targets;
  j["why"] = why;
  j["same_operator"] = same_operator;
  j["design"] = design_name;
  j["key"] = key;
  j["sources"] = {{"cuda_sha256", cuda_sha256}, {"vortex_sha256", vortex_sha256}};
  if (!generator.unversioned()) j["generator"] = codegen::generator_to_json(generator);
  j["checks"] = {{"source", source_check.to_json()}, {"candidate", candidate_check.to_json()}};
  Json sig = Json::object(), dist = Json::object();
  for (const auto& m : signature::metric_table()) {
    const auto i = signature::index_of(m.id);
    sig[std::string(m.key)] = opt(signature[i]);
    dist[std::string(m.key)] = opt(distances[i]);
  }
  j["signature"] = sig;
  j["profiles"] = profiles;
  j["distances"] = dist;
  j["d"] = opt(d);
  j["parent_d"] = opt(parent_d);
  j["delta_d"] = opt(delta_d);
  j["scope"] = signature::scope_key(scope);
  j[scope == signature::Scope::kOperator ? "kernel_d" : "operator_d"] = opt(other_d);
  j["time_ratio"] = opt(time_ratio);
  j["dram_ratio"] = opt(dram_ratio);
  j["retention"] = retention.to_json();
  j["decision"] = decision;
  j["reason"] = reason;
  j["device_seconds"] = device_seconds;
  j["sim_seconds"] = sim_seconds;
  j["evaluator"] = evaluator;
  j["note"] = note;
  return j;
}

RecordFile::RecordFile(std::string path, bool resume) : path_(std::move(path)) {
  fs::create_directories(fs::path(path_).parent_path());
  // The lock first, then the lines: what is read cannot change under us.
  lock_fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) throw WorkError("cannot open " + path_ + " to write revisions");
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  if (::fcntl(lock_fd_, F_OFD_SETLK, &fl) != 0 && (errno == EAGAIN || errno == EACCES)) {
    ::close(lock_fd_);
    throw WorkError(path_ + ": another process is writing this revision record (a run of the same --out still going, or "
                    "an earlier attempt of a cluster task not yet ended): wait for it to end, or stop it");
  }
  // Other errors (a file system without locks): go on unlocked, as before.
  try {
    lines_ = complete_lines(path_, &good_bytes_);
    std::error_code ec;
    const auto size = fs::file_size(path_, ec);
    if (!resume && !ec && size > 0) {
      throw InputError(path_, "", "a revision record already exists here: give --resume to continue it, or another --out");
    }
  } catch (...) {
    ::close(lock_fd_);
    throw;
  }
}

RecordFile::~RecordFile() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

void RecordFile::append(const Json& line) {
  const std::size_t index = static_cast<std::size_t>(next_);
  if (index < lines_.size()) {
    if (without_time(lines_[index]) != without_time(Json::parse(dump_json(line, -1)))) {
      throw WorkError(path_ + ": line " + std::to_string(index + 1) +
                      " differs from what the resumed run produces (were the options changed?):\n  on disk: " +
                      dump_json(without_time(lines_[index]), -1).substr(0, 400) + "\n  now:     " +
                      dump_json(without_time(line), -1).substr(0, 400));
    }
    ++next_;
    return;
  }
  if (!truncated_) {
    // Drop a torn last line before writing after it.
    std::error_code ec;
    if (fs::exists(path_) && fs::file_size(path_, ec) != good_bytes_) fs::resize_file(path_, good_bytes_, ec);
    truncated_ = true;
  }
  Json stamped = line;
  stamped["at"] = utc_now();
  const std::string text = dump_json(stamped, -1) + "\n";
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) throw WorkError("cannot open " + path_ + " to append a revision");
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) {
      ::close(fd);
      throw WorkError("cannot append a revision to " + path_);
    }
    done += static_cast<std::size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  ++next_;
}

std::vector<Json> read_records(const std::string& path) {
  std::size_t good = 0;
  return complete_lines(path, &good);
}

}  // namespace vxsynth::refine
