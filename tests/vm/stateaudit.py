# SPDX-License-Identifier: GPL-2.0
"""The state audit: everything procfs and the kernel show of a process
tree, taken before the dump and after the restore, and compared attribute
by attribute against the lists of spec/state.md.  An attribute there is
carried (the restore has the same value), refused (the dump stops when it
is not at its default, so a restore that succeeded has it at its default
on both sides), or not carried, with the reason; an attribute the audit
sees that the lists do not name is a failure too, so that a kernel or a
workload showing something new cannot go unnoticed.

A capture is a dict "WHERE|ATTRIBUTE" -> value, JSON-able (a migration
keeps it in its notes): WHERE names the object (process 100, thread 101
of 100, fd 3 of 100, vma 0x7f...-0x7f... of 100, lock 2 of 100) and
ATTRIBUTE what of it ("status:Umask", "fdinfo:pos", "smaps:VmFlags", ...),
which is what the lists name."""
import ctypes
import errno
import fcntl
import mmap
import os
import re
import socket
import stat
import struct
import termios

STATE_LISTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "state.md")

# Field names of /proc/PID/stat, from proc(5), by position from 1.
STAT_FIELDS = (
    "pid comm state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt "
    "utime stime cutime cstime priority nice num_threads itrealvalue starttime vsize rss "
    "rsslim startcode endcode startstack kstkesp kstkeip signal blocked sigignore sigcatch "
    "wchan nswap cnswap exit_signal processor rt_priority policy delayacct_blkio_ticks "
    "guest_time cguest_time start_data end_data start_brk arg_start arg_end env_start "
    "env_end exit_code").split()

# fcntl(2) and getsockopt(2) values procfs does not show, read on a
# duplicate of the descriptor (pidfd_getfd(2)).
F_GETOWN_EX, F_GETSIG, F_GETLEASE, F_GETPIPE_SZ, F_GET_SEALS = 16, 11, 1025, 1032, 1034
SYS_pidfd_getfd = 438

# (level, option, name, size) of the socket options the audit reads; each
# named "sockopt:NAME" in the lists.
SOL_TCP, SOL_IPV6 = 6, 41
SOCKET_OPTIONS = [
    (socket.SOL_SOCKET, socket.SO_REUSEADDR, "SO_REUSEADDR", 4),
    (socket.SOL_SOCKET, socket.SO_REUSEPORT, "SO_REUSEPORT", 4),
    (socket.SOL_SOCKET, socket.SO_KEEPALIVE, "SO_KEEPALIVE", 4),
    (socket.SOL_SOCKET, socket.SO_BROADCAST, "SO_BROADCAST", 4),
    (socket.SOL_SOCKET, socket.SO_OOBINLINE, "SO_OOBINLINE", 4),
    (socket.SOL_SOCKET, socket.SO_SNDBUF, "SO_SNDBUF", 4),
    (socket.SOL_SOCKET, socket.SO_RCVBUF, "SO_RCVBUF", 4),
    (socket.SOL_SOCKET, socket.SO_RCVLOWAT, "SO_RCVLOWAT", 4),
    (socket.SOL_SOCKET, socket.SO_LINGER, "SO_LINGER", 8),
    (socket.SOL_SOCKET, socket.SO_RCVTIMEO, "SO_RCVTIMEO", 16),
    (socket.SOL_SOCKET, socket.SO_SNDTIMEO, "SO_SNDTIMEO", 16),
    (socket.SOL_SOCKET, socket.SO_PRIORITY, "SO_PRIORITY", 4),
    (socket.SOL_SOCKET, 36, "SO_MARK", 4),
    (socket.SOL_SOCKET, socket.SO_PASSCRED, "SO_PASSCRED", 4),
    (socket.SOL_SOCKET, 29, "SO_TIMESTAMP", 4),
    (socket.SOL_SOCKET, 35, "SO_TIMESTAMPNS", 4),
    (socket.SOL_SOCKET, 37, "SO_TIMESTAMPING", 4),
    (socket.SOL_SOCKET, 25, "SO_BINDTODEVICE", 16),
    (socket.SOL_SOCKET, 44, "SO_LOCK_FILTER", 4),
    (socket.SOL_SOCKET, 26, "SO_GET_FILTER", 0),   # a classic BPF filter's length
    (socket.SOL_SOCKET, 43, "SO_PEEK_OFF", 4),
    (socket.SOL_SOCKET, 46, "SO_BUSY_POLL", 4),
    (socket.SOL_SOCKET, 49, "SO_INCOMING_CPU", 4),
    (socket.SOL_SOCKET, 60, "SO_ZEROCOPY", 4),
    (socket.SOL_SOCKET, 1, "SO_DEBUG", 4),
    (socket.SOL_SOCKET, 11, "SO_NO_CHECK", 4),
    (socket.SOL_SOCKET, 34, "SO_PASSSEC", 4),
    (socket.SOL_SOCKET, 76, "SO_PASSPIDFD", 4),
    (socket.SOL_SOCKET, 40, "SO_RXQ_OVFL", 4),
    (socket.SOL_SOCKET, 41, "SO_WIFI_STATUS", 4),
    (socket.SOL_SOCKET, 43, "SO_NOFCS", 4),
    (socket.SOL_SOCKET, 45, "SO_SELECT_ERR_QUEUE", 4),
    (socket.SOL_SOCKET, 47, "SO_MAX_PACING_RATE", 8),
    (socket.SOL_SOCKET, 61, "SO_TXTIME", 8),
    (socket.SOL_SOCKET, 69, "SO_PREFER_BUSY_POLL", 4),
    (socket.SOL_SOCKET, 70, "SO_BUSY_POLL_BUDGET", 4),
    (socket.SOL_SOCKET, 72, "SO_BUF_LOCK", 4),
    (socket.SOL_SOCKET, 73, "SO_RESERVE_MEM", 4),
    (socket.SOL_SOCKET, 74, "SO_TXREHASH", 4),
    (socket.SOL_SOCKET, 75, "SO_RCVMARK", 4),
    (0, 3, "IP_HDRINCL", 4),
    (255, 1, "ICMP_FILTER", 4),
    (41, 7, "IPV6_CHECKSUM", 4),
    (58, 1, "ICMPV6_FILTER", 32),
    (136, 10, "UDPLITE_SEND_CSCOV", 4),
    (136, 11, "UDPLITE_RECV_CSCOV", 4),
    (263, 10, "PACKET_VERSION", 4),
    (263, 8, "PACKET_AUXDATA", 4),
    (263, 9, "PACKET_ORIGDEV", 4),
    (263, 12, "PACKET_RESERVE", 4),
    (263, 17, "PACKET_TIMESTAMP", 4),
    (263, 20, "PACKET_QDISC_BYPASS", 4),
    (270, 3, "NETLINK_PKTINFO", 4),
    (270, 4, "NETLINK_BROADCAST_ERROR", 4),
    (270, 5, "NETLINK_NO_ENOBUFS", 4),
    (270, 8, "NETLINK_LISTEN_ALL_NSID", 4),
    (270, 9, "NETLINK_LIST_MEMBERSHIPS", 8),    # the first 64 groups
    (270, 10, "NETLINK_CAP_ACK", 4),
    (270, 11, "NETLINK_EXT_ACK", 4),
    (270, 12, "NETLINK_GET_STRICT_CHK", 4),
    (socket.IPPROTO_IP, socket.IP_TOS, "IP_TOS", 4),
    (socket.IPPROTO_IP, socket.IP_TTL, "IP_TTL", 4),
    (socket.IPPROTO_IP, 11, "IP_RECVERR", 4),
    (socket.IPPROTO_IP, 15, "IP_FREEBIND", 4),
    (socket.IPPROTO_IP, 19, "IP_TRANSPARENT", 4),
    (socket.IPPROTO_IP, 8, "IP_PKTINFO", 4),
    (socket.IPPROTO_IP, 10, "IP_MTU_DISCOVER", 4),
    (socket.IPPROTO_IP, 33, "IP_MULTICAST_TTL", 4),
    (socket.IPPROTO_IP, 34, "IP_MULTICAST_LOOP", 4),
    (socket.IPPROTO_IP, 24, "IP_BIND_ADDRESS_NO_PORT", 4),
    (SOL_IPV6, 26, "IPV6_V6ONLY", 4),
    (SOL_IPV6, 67, "IPV6_TCLASS", 4),
    (SOL_IPV6, 16, "IPV6_UNICAST_HOPS", 4),
    (SOL_IPV6, 25, "IPV6_RECVERR", 4),
    (SOL_IPV6, 49, "IPV6_RECVPKTINFO", 4),
    (SOL_TCP, 1, "TCP_NODELAY", 4),
    (SOL_TCP, 3, "TCP_CORK", 4),
    (SOL_TCP, 4, "TCP_KEEPIDLE", 4),
    (SOL_TCP, 5, "TCP_KEEPINTVL", 4),
    (SOL_TCP, 6, "TCP_KEEPCNT", 4),
    (SOL_TCP, 7, "TCP_SYNCNT", 4),
    (SOL_TCP, 8, "TCP_LINGER2", 4),
    (SOL_TCP, 9, "TCP_DEFER_ACCEPT", 4),
    (SOL_TCP, 12, "TCP_QUICKACK", 4),
    (SOL_TCP, 13, "TCP_CONGESTION", 16),
    (SOL_TCP, 18, "TCP_USER_TIMEOUT", 4),
    (SOL_TCP, 23, "TCP_FASTOPEN", 4),
    (SOL_TCP, 25, "TCP_NOTSENT_LOWAT", 4),
    (SOL_TCP, 30, "TCP_FASTOPEN_CONNECT", 4),
    (SOL_TCP, 2, "TCP_MAXSEG", 4),
    (SOL_TCP, 10, "TCP_WINDOW_CLAMP", 4),
]


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return None


def _children(pid):
    kids = []
    for tid in _tasks(pid):
        text = _read("/proc/%d/task/%d/children" % (pid, tid))
        kids += [int(c) for c in (text or "").split()]
    return sorted(set(kids))


def _tasks(pid):
    try:
        return sorted(int(t) for t in os.listdir("/proc/%d/task" % pid))
    except OSError:
        return []


def tree_pids(root):
    """root and its descendants, as the kernel's children lists link them."""
    pids, todo = [], [root]
    while todo:
        pid = todo.pop(0)
        if pid in pids:
            continue
        pids.append(pid)
        todo += _children(pid)
    return pids


# What /proc shows as a task's state, as far as a process decides it:
# stopped by job control or not (running, sleeping or waiting is the
# scheduler's), a zombie.
TASK_STATES = {"R": "running", "S": "running", "D": "running", "I": "running",
               "T": "stopped", "t": "traced", "Z": "zombie", "X": "dead"}


class Capture:
    def __init__(self):
        self.items = {}

    def put(self, where, attr, value):
        self.items["%s|%s" % (where, attr)] = value

    def key_value_file(self, where, prefix, path, sep=":"):
        """Each "key: value" line; a key on several lines (an epoll's tfd,
        an inotify's watches) has them all, in order."""
        text = _read(path)
        if text is None:
            return
        seen = set()
        for line in text.splitlines():
            if sep in line:
                key, value = line.split(sep, 1)
                attr = "%s:%s" % (prefix, key.strip())
                value = " ".join(value.split())
                full = "%s|%s" % (where, attr)
                if attr in seen:
                    self.items[full] += "\n" + value
                else:
                    seen.add(attr)
                    self.put(where, attr, value)

    def whole_file(self, where, attr, path):
        text = _read(path)
        if text is not None:
            self.put(where, attr, text.strip())


def _stat_fields(path):
    text = _read(path)
    if text is None:
        return None
    # comm is in parentheses and may hold spaces and parentheses
    head, tail = text.rsplit(")", 1)
    pid, comm = head.split(" (", 1)
    return [pid, comm] + tail.split()


# /dev/pts slaves (Documentation/admin-guide/devices.txt): the number is
# the minor, which a restore's new pair need not get again.
PTS_MAJORS = range(136, 144)


def capture_stat(c, where, path):
    fields = _stat_fields(path)
    for i, value in enumerate(fields or []):
        name = STAT_FIELDS[i] if i < len(STAT_FIELDS) else "field%d" % (i + 1)
        if name == "state":
            value = TASK_STATES.get(value, value)
        if name == "tty_nr" and os.major(int(value)) in PTS_MAJORS:
            c.put(where, "stat:tty_nr pts number", os.minor(int(value)))
            value = "pts"
        c.put(where, "stat:%s" % name, value)


def capture_status(c, where, prefix, path):
    c.key_value_file(where, prefix, path)
    key = "%s|%s:State" % (where, prefix)
    if key in c.items:
        c.items[key] = TASK_STATES.get(c.items[key][:1], c.items[key])


def capture_limits(c, where, pid):
    text = _read("/proc/%d/limits" % pid) or ""
    for line in text.splitlines()[1:]:
        m = re.match(r"(.+?)\s{2,}(\S+)\s+(\S+)", line)
        if m:
            c.put(where, "limits:%s" % m.group(1), "%s %s" % (m.group(2), m.group(3)))


PAGE = os.sysconf("SC_PAGE_SIZE")
PM_PRESENT, PM_FILE, PM_EXCLUSIVE, PM_PFN = 1 << 63, 1 << 61, 1 << 56, (1 << 55) - 1


def _zero_pfn():
    """The frame of the kernel's zero page, which a read of untouched
    private memory maps, shared by everyone and no one's state."""
    area = mmap.mmap(-1, PAGE, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        area[0]     # a read fault maps the zero page
        view = ctypes.c_char.from_buffer(area)
        addr = ctypes.addressof(view)
        del view
        with open("/proc/self/pagemap", "rb") as f:
            f.seek(addr // PAGE * 8)
            (entry,) = struct.unpack("<Q", f.read(8))
        return entry & PM_PFN
    finally:
        area.close()


ZERO_PFN = None


def shared_anon_pages(pagemap, start, end):
    """Present anonymous pages of [start, end) that another process maps
    too: what fork() left shared copy-on-write."""
    global ZERO_PFN
    if ZERO_PFN is None:
        ZERO_PFN = _zero_pfn()
    n = (end - start) // PAGE
    pagemap.seek(start // PAGE * 8)
    data = pagemap.read(n * 8)
    count = 0
    for (entry,) in struct.iter_unpack("<Q", data):
        if entry & PM_PRESENT and not entry & (PM_FILE | PM_EXCLUSIVE) and \
                entry & PM_PFN != ZERO_PFN:
            count += 1
    return count


def capture_smaps(c, pid):
    text = _read("/proc/%d/smaps" % pid) or ""
    try:
        pagemap = open("/proc/%d/pagemap" % pid, "rb")
    except OSError:
        pagemap = None
    where = None
    for line in text.splitlines():
        m = re.match(r"([0-9a-f]+)-([0-9a-f]+) (\S+) (\S+) (\S+) (\d+)\s*(.*)$", line)
        if m:
            where = "vma 0x%s-0x%s of %d" % (m.group(1), m.group(2), pid)
            if pagemap and m.group(7) != "[vsyscall]":
                c.put(where, "pagemap:shared anonymous pages",
                      shared_anon_pages(pagemap, int(m.group(1), 16), int(m.group(2), 16)))
            c.put(where, "maps:perms", m.group(3))
            c.put(where, "maps:offset", m.group(4))
            c.put(where, "maps:dev", m.group(5))
            c.put(where, "maps:inode", m.group(6))
            c.put(where, "maps:path", m.group(7))
            continue
        if where and ":" in line:
            key, value = line.split(":", 1)
            value = value.strip()
            if key == "VmFlags":
                # sd: the kernel's soft-dirty tracking, which a dump resets
                value = " ".join(sorted(f for f in value.split() if f != "sd"))
            c.put(where, "smaps:%s" % key, value)
    if pagemap:
        pagemap.close()


_libc = ctypes.CDLL(None, use_errno=True)


def _pidfd_getfd(pidfd, fd):
    dup = _libc.syscall(SYS_pidfd_getfd, pidfd, fd, 0)
    return dup if dup >= 0 else None


def _fcntl_value(fd, cmd, arg=0):
    try:
        return fcntl.fcntl(fd, cmd, arg)
    except OSError as e:
        return "error %s" % errno.errorcode.get(e.errno, e.errno)


# ioctl(2) requests of a terminal (asm-generic/ioctls.h)
TIOCGPKT, TIOCGPTLCK, TIOCGEXCL, TIOCGSID, TIOCGPGRP, TIOCGWINSZ = (
    0x80045438, 0x80045439, 0x80045440, 0x5429, 0x540f, 0x5413)


def _ioctl_int(fd, request, size=4):
    try:
        return int.from_bytes(fcntl.ioctl(fd, request, bytes(size)), "little", signed=True)
    except OSError as e:
        return "error %s" % errno.errorcode.get(e.errno, e.errno)


def capture_terminal(c, where, fd, master):
    """A pseudo-terminal end: what the tty record carries.  A master
    answers for its slave's termios and window size."""
    try:
        iflag, oflag, cflag, lflag, ispeed, ospeed, cc = termios.tcgetattr(fd)
        c.put(where, "tty:termios", "%o %o %o %o %d %d %s" % (
            iflag, oflag, cflag, lflag, ispeed, ospeed,
            bytes(x if isinstance(x, int) else x[0] for x in cc[:19]).hex()))
    except termios.error as e:
        c.put(where, "tty:termios", "error %s" % e.args[0])
    c.put(where, "tty:winsize", fcntl.ioctl(fd, TIOCGWINSZ, bytes(8)).hex())
    c.put(where, "tty:exclusive", _ioctl_int(fd, TIOCGEXCL))
    if master:
        c.put(where, "tty:packet", _ioctl_int(fd, TIOCGPKT))
        c.put(where, "tty:locked", _ioctl_int(fd, TIOCGPTLCK))
        c.put(where, "tty:session", _ioctl_int(fd, TIOCGSID))
        c.put(where, "tty:foreground group", _ioctl_int(fd, TIOCGPGRP))


def capture_descriptor_calls(c, where, fd, link):
    """What only a duplicate of the descriptor shows."""
    try:
        kind, opid = struct.unpack("ii", fcntl.fcntl(fd, F_GETOWN_EX, bytes(8)))
        c.put(where, "fcntl:F_GETOWN_EX", "%d %d" % (kind, opid))
    except OSError as e:
        c.put(where, "fcntl:F_GETOWN_EX", "error %s" % errno.errorcode.get(e.errno, e.errno))
    c.put(where, "fcntl:F_GETSIG", _fcntl_value(fd, F_GETSIG))
    if link.startswith("/"):
        c.put(where, "fcntl:F_GETLEASE", _fcntl_value(fd, F_GETLEASE))
        st = os.fstat(fd)
        pts = stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) in PTS_MAJORS
        if pts or link in ("/dev/ptmx", "/dev/pts/ptmx"):
            capture_terminal(c, where, fd, not pts)
        if pts:
            c.put(where, "fstat:rdev pts number", os.minor(st.st_rdev))
            return
        if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
            # a device node's times and owner are the boot's /dev
            c.put(where, "fstat:rdev", st.st_rdev)
            return
        c.put(where, "fstat:mode", "%o" % st.st_mode)
        c.put(where, "fstat:uid", st.st_uid)
        c.put(where, "fstat:gid", st.st_gid)
        c.put(where, "fstat:size", st.st_size)
        c.put(where, "fstat:nlink", st.st_nlink)
        # a procfs file's times are its inode's, made when it is looked up
        c.put(where, "fstat:mtime of procfs" if link.startswith("/proc/") else "fstat:mtime",
              st.st_mtime_ns)
        c.put(where, "fstat:atime", st.st_atime_ns)
        c.put(where, "fstat:ctime", st.st_ctime_ns)
    if link.startswith("pipe:") or link.startswith("/"):
        value = _fcntl_value(fd, F_GETPIPE_SZ)
        if not isinstance(value, str):
            c.put(where, "fcntl:F_GETPIPE_SZ", value)
    if link.startswith("/memfd:"):
        c.put(where, "fcntl:F_GET_SEALS", _fcntl_value(fd, F_GET_SEALS))
    if link.startswith("socket:"):
        capture_socket_options(c, where, fd)


def _getsockopt_length(fd, level, option):
    """What getsockopt() says with no room: SO_GET_FILTER's instruction count."""
    length = ctypes.c_uint32(0)
    if _libc.getsockopt(fd, level, option, None, ctypes.byref(length)):
        raise OSError(ctypes.get_errno(), "getsockopt")
    return length.value


def capture_socket_options(c, where, fd):
    s = socket.socket(fileno=os.dup(fd))
    try:
        stream = s.type == socket.SOCK_STREAM
        try:
            connected = stream and bool(s.getpeername())
        except OSError:
            connected = False
        for level, option, name, size in SOCKET_OPTIONS:
            if stream and name == "IP_MULTICAST_TTL":
                name += " of TCP"
            if connected and name == "TCP_MAXSEG":
                name += " of a connection"
            try:
                if not size:
                    value = _getsockopt_length(fd, level, option)
                else:
                    value = s.getsockopt(level, option, size)
                    value = int.from_bytes(value, "little") if size == 4 else value.hex()
            except OSError as e:
                value = "error %s" % errno.errorcode.get(e.errno, e.errno)
            c.put(where, "sockopt:%s" % name, value)
    finally:
        s.close()


O_ASYNC = 0o20000


def capture_fdinfo(c, where, path):
    """fdinfo, with what names a new file left out: the inode and device
    an epoll item's file has (which tfd and pos name as well), and the
    order of the items, which is the kernel's by file address."""
    c.key_value_file(where, "fdinfo", path)
    key = "%s|fdinfo:inotify wd" % where
    if key in c.items:
        # the watched inode, by number and handle: the boot's names for it
        watches = sorted(c.items[key].split("\n"))
        c.items[key] = "\n".join(re.sub(r" ino:\S+ sdev:\S+|fhandle-bytes:\S+ "
                                         r"fhandle-type:\S+ f_handle:\S+", "", w).strip()
                                  for w in watches)
        c.put(where, "fdinfo:inotify wd inode", "\n".join(
            " ".join(re.findall(r"(?:ino|sdev|f_handle):\S+", w)) for w in watches))
    key = "%s|fdinfo:lock" % where
    if key in c.items:
        # the locked inode, as major:minor:number: the boot's name for the file
        locks = c.items[key].split("\n")
        c.items[key] = "\n".join(re.sub(r" [0-9a-f]+:[0-9a-f]+:\d+ ", " ", k) for k in locks)
        c.put(where, "fdinfo:lock inode", "\n".join(k.split()[5] for k in locks))
    key = "%s|fdinfo:tfd" % where
    if key in c.items:
        items = [re.sub(r" ino:\S+ sdev:\S+", "", i) for i in c.items[key].split("\n")]
        c.items[key] = "\n".join(sorted(items))
    key = "%s|fdinfo:flags" % where
    if key in c.items:
        flags = int(c.items[key], 8)
        c.items[key] = "0%o" % (flags & ~O_ASYNC)
        c.put(where, "fdinfo:flags O_ASYNC", bool(flags & O_ASYNC))


def capture_descriptors(c, pid):
    try:
        fds = sorted(int(fd) for fd in os.listdir("/proc/%d/fd" % pid))
    except OSError:
        return
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        pidfd = None
    try:
        for fd in fds:
            where = "fd %d of %d" % (fd, pid)
            try:
                link = os.readlink("/proc/%d/fd/%d" % (pid, fd))
            except OSError:
                continue
            # a new pipe or socket has a new inode: fdinfo:ino says which;
            # a new pseudo-terminal may have a new number: fd:link pts number
            c.put(where, "fd:link", re.sub(r":\[\d+\]$", ":[]",
                                           re.sub(r"^/dev/pts/\d+$", "/dev/pts/N", link)))
            if re.fullmatch(r"/dev/pts/\d+", link):
                c.put(where, "fd:link pts number", int(link.rsplit("/", 1)[1]))
            capture_fdinfo(c, where, "/proc/%d/fdinfo/%d" % (pid, fd))
            dup = _pidfd_getfd(pidfd, fd) if pidfd is not None else None
            if dup is not None:
                try:
                    capture_descriptor_calls(c, where, dup, link)
                finally:
                    os.close(dup)
    finally:
        if pidfd is not None:
            os.close(pidfd)


def capture_locks(c, pids):
    """/proc/locks lines of the tree's processes, by owner and in order of
    their text: the kernel lists them per CPU, in no order a restore keeps."""
    text = _read("/proc/locks") or ""
    owned = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 8 or fields[1] == "->":
            continue
        owner = int(fields[4])
        if owner in pids:
            owned.setdefault(owner, []).append(fields)
    for owner, lines in owned.items():
        lines.sort(key=lambda f: " ".join(f[1:4] + f[6:]))
        for n, fields in enumerate(lines):
            where = "lock %d of %d" % (n, owner)
            c.put(where, "locks:lock", " ".join(fields[1:4] + fields[6:]))
            c.put(where, "locks:lock inode", fields[5])


def _cpu_clock(m):
    """A CPU-time clock's kind without its thread or process: the timer of
    a thread clock created for the calling thread (pid 0) comes back
    naming that thread, the same clock."""
    clock = int(m.group(1))
    return "ClockID: cpu clock %s %d" % ("thread" if clock & 4 else "process", clock & 3)


# All there is of a zombie: who it was, where in the tree, how it ended.
ZOMBIE_STAT = ("pid", "comm", "state", "ppid", "pgrp", "session", "exit_signal", "exit_code")


def capture_zombie(c, pid):
    """The rest of a zombie's procfs is what its exit left, which no one
    can act on: its wait status is its state."""
    where = "process %d" % pid
    fields = _stat_fields("/proc/%d/stat" % pid) or []
    for i, value in enumerate(fields):
        if i < len(STAT_FIELDS) and STAT_FIELDS[i] in ZOMBIE_STAT:
            if STAT_FIELDS[i] == "state":
                value = TASK_STATES.get(value, value)
            c.put(where, "stat:%s" % STAT_FIELDS[i], value)


def capture_process(c, pid):
    where = "process %d" % pid
    fields = _stat_fields("/proc/%d/stat" % pid)
    if fields and fields[2] == "Z":
        capture_zombie(c, pid)
        return
    capture_status(c, where, "status", "/proc/%d/status" % pid)
    capture_stat(c, where, "/proc/%d/stat" % pid)
    capture_limits(c, where, pid)
    timers = _read("/proc/%d/timers" % pid)
    if timers is not None:
        c.put(where, "timers", re.sub(r"ClockID: (-\d+)", _cpu_clock, timers.strip()))
    for name in ("oom_score_adj", "timerslack_ns", "personality", "coredump_filter",
                 "cgroup", "comm", "cmdline", "environ", "mountinfo", "autogroup",
                 "loginuid", "sessionid", "uid_map", "gid_map", "setgroups", "cpuset",
                 "arch_status"):
        path = "/proc/%d/%s" % (pid, name)
        if os.path.exists(path):
            c.whole_file(where, name, path)
    for link in ("exe", "cwd", "root"):
        try:
            c.put(where, "link:%s" % link, os.readlink("/proc/%d/%s" % (pid, link)))
        except OSError:
            pass
    try:
        for ns in sorted(os.listdir("/proc/%d/ns" % pid)):
            c.put(where, "ns:%s" % ns, os.readlink("/proc/%d/ns/%s" % (pid, ns)))
    except OSError:
        pass
    capture_smaps(c, pid)
    capture_descriptors(c, pid)
    for tid in _tasks(pid):
        twhere = "thread %d of %d" % (tid, pid)
        capture_status(c, twhere, "task status", "/proc/%d/task/%d/status" % (pid, tid))
        capture_stat(c, twhere, "/proc/%d/task/%d/stat" % (pid, tid))
        capture_sched(c, twhere, "/proc/%d/task/%d/sched" % (pid, tid))
        c.whole_file(twhere, "task comm", "/proc/%d/task/%d/comm" % (pid, tid))
        capture_sched_attr(c, twhere, tid)


def capture_sched(c, where, path):
    """The "name : value" lines of /proc/PID/sched."""
    for line in (_read(path) or "").splitlines():
        m = re.match(r"(\S+)\s+:\s+(.*)$", line)
        if m:
            c.put(where, "sched:%s" % m.group(1), m.group(2).strip())


class SchedAttr(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("policy", ctypes.c_uint32),
                ("flags", ctypes.c_uint64), ("nice", ctypes.c_int32),
                ("priority", ctypes.c_uint32), ("runtime", ctypes.c_uint64),
                ("deadline", ctypes.c_uint64), ("period", ctypes.c_uint64),
                ("util_min", ctypes.c_uint32), ("util_max", ctypes.c_uint32)]


SYS_sched_getattr = 315
SYS_ioprio_get = 252


def capture_sched_attr(c, where, tid):
    attr = SchedAttr()
    if _libc.syscall(SYS_sched_getattr, tid, ctypes.byref(attr), ctypes.sizeof(attr), 0):
        return
    for name in ("policy", "flags", "nice", "priority", "runtime", "deadline", "period"):
        c.put(where, "sched_getattr:%s" % name, getattr(attr, name))
    try:
        c.put(where, "sched_getaffinity", sorted(os.sched_getaffinity(tid)))
    except OSError:
        pass
    # ioprio_get(IOPRIO_WHO_PROCESS, tid): fails where there is no block layer
    ioprio = _libc.syscall(SYS_ioprio_get, 1, tid)
    if ioprio >= 0:
        c.put(where, "ioprio", ioprio)


def capture(root):
    """Everything the audit sees of the tree under root."""
    c = Capture()
    pids = tree_pids(root)
    for pid in pids:
        capture_process(c, pid)
    capture_locks(c, set(pids))
    return c.items


# --- the lists ---------------------------------------------------------

LISTS = ("carried", "carried in the same boot", "refused", "not yet refused", "not carried")


def load_lists(path=STATE_LISTS):
    """{attribute pattern: list} from the tables of spec/state.md: rows
    "| `ATTRIBUTE` | LIST | ... |"; a pattern may end in "*"."""
    lists = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"\|\s*`([^`]+)`\s*\|\s*([a-z ]+?)\s*\|", line)
            if m and m.group(2) in LISTS:
                lists[m.group(1)] = m.group(2)
    return lists


def classify(lists, attr):
    if attr in lists:
        return lists[attr]
    if attr.startswith("task status:"):
        # a thread's status file: as the process's, but for its own rows
        return classify(lists, attr[len("task "):])
    best = None
    for pattern, which in lists.items():
        if pattern.endswith("*") and attr.startswith(pattern[:-1]):
            if best is None or len(pattern) > len(best[0]):
                best = (pattern, which)
    return best[1] if best else None


def differences(before, after, same_boot=True, lists=None, moving=()):
    """(failures, known losses): values of carried and refused attributes
    that differ or are on one side only, and attributes the lists do not
    name; and the differences of attributes not yet refused, which the
    lists own up to.  moving: regular expressions of the keys a running
    workload changes itself between the two captures (a log's position)."""
    lists = lists if lists is not None else load_lists()
    out, known, unlisted = [], [], set()
    for key in sorted(set(before) | set(after)):
        where, attr = key.split("|", 1)
        if any(re.fullmatch(m, key) for m in moving):
            continue
        which = classify(lists, attr)
        if which is None:
            unlisted.add(attr)
            continue
        if which == "not carried" or (which == "carried in the same boot" and not same_boot):
            continue
        b, a = before.get(key), after.get(key)
        if b != a:
            (known if which == "not yet refused" else out).append(
                "%s: %s (%s): %r -> %r" % (where, attr, which, b, a))
    out += ["unlisted attribute %s" % attr for attr in sorted(unlisted)]
    return out, known


def boot_id():
    with open("/proc/sys/kernel/random/boot_id") as f:
        return f.read().strip()


def note(root):
    """The audit's view of the original tree, JSON-able, for a test's notes."""
    return {"boot": boot_id(), "state": capture(root)}


def check(t, name, original, root, moving=()):
    """One TAP check on t: the tree restored at root shows what the
    original (note()) did, in this boot or another.  The root's parent is
    whoever restores it (spec/state.md)."""
    after = capture(root)
    same_boot = original["boot"] == boot_id()
    parent = (r"(process %d|thread \d+ of %d)\|(status:PPid|task status:PPid|stat:ppid)"
              % (root, root))
    lines, known = differences(original["state"], after, same_boot,
                               moving=tuple(moving) + (parent,))
    if known:
        t.diag("%s: %d known losses (spec/state.md: not yet refused), e.g.\n%s" %
               (name, len(known), "\n".join(known[:8])))
    return t.check(not lines, "%s: the state audit finds nothing lost (%d attributes, %s)"
                   % (name, len(after), "same boot" if same_boot else "another boot"),
                   "\n".join(lines[:80]))
