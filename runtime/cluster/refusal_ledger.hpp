#pragma once
// RefusalLedger: what the coordinator does about each message of a peer it refused. It says the
// first refusal of each kind from each peer (a bounded number of lines: a flood of peers must not
// flood the log), counts each peer process's refusals, and once one reaches
// cluster.max_refusals, has its connections ended: a node is cut off first (told to stop), a peer
// that is no node is disconnected at once. A peer that comes back and is refused again is
// disconnected again, at most once per `redisconnect_after` (ending connections takes lookups on
// every plane; messages already on their way must not each start one).
//
// Plain data: the coordinator's actor asks it and carries out its verdicts.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace dvla {

class RefusalLedger {
 public:
  using Clock = std::chrono::steady_clock;

  struct Verdict {
    bool say = false;            // the first refusal of this kind from this peer: log it
    bool last_said = false;      // the log's last refusal line: later new ones are only counted
    uint64_t refusals = 0;       // its process's so far; 0 for one not counted per peer (anonymous)
    bool bound_reached = false;  // this one reached max_refusals
    bool disconnect = false;     // end its connections now (then call disconnected())
  };

  // `max_peers`: processes counted one by one; refusals of further ones are only said and
  // counted in total (each new process needs a connection of its own: those are bounded).
  explicit RefusalLedger(uint64_t max_refusals,
                         Clock::duration redisconnect_after = std::chrono::seconds(1),
                         size_t max_logged = 1024, size_t max_peers = 4096);

  // A message of `peer` (its CAF node as text; "" for an anonymous sender), of the process
  // `process` ("" likewise), of `kind`, was refused at `now`.
  Verdict refused(const std::string& peer, const std::string& process, const std::string& kind,
                  Clock::time_point now);
  // Ending the connections of `process` finished at `now`: the next refusal past the bound may
  // end them again after redisconnect_after.
  void disconnected(const std::string& process, Clock::time_point now);

  uint64_t refusals_of(const std::string& process) const;

 private:
  struct Peer {
    uint64_t refusals = 0;
    bool disconnecting = false;  // one is under way (a node cut off: once it was told)
    bool ever_disconnected = false;
    Clock::time_point disconnected{};
  };
  bool may_disconnect(const Peer& p, Clock::time_point now) const;

  uint64_t max_refusals_;
  Clock::duration redisconnect_after_;
  size_t max_logged_, max_peers_;
  std::set<std::pair<std::string, std::string>> logged_;  // (peer, kind) said
  std::map<std::string, Peer> peers_;
};

}  // namespace dvla
