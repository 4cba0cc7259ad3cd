// SPDX-License-Identifier: GPL-2.0
/*
 * netns-admin - administer a network namespace as the root of a user
 * namespace.
 *
 *	netns-admin        new user namespace + new network namespace
 *	netns-admin -U     new user namespace only: try the same on the host's
 *	                   network namespace (must be refused)
 *
 * Run it as an ordinary user (uid 1000). The parent maps its own uid and
 * gid to 0 in the child's user namespace; the child, root there, then tries
 * what a container's init does first: bring lo up, make a veth pair, give it
 * addresses (rtnetlink and the old ioctls), make a tap device (/dev/net/tun)
 * and bring it up, open raw sockets, serve TCP on port 80 and turn on
 * ip_forward. Then it tries what it must not: rtnetlink on a socket opened
 * or used without CAP_NET_ADMIN (its effective capabilities dropped for a
 * moment), the global-only SIOCSIFTXQLEN, and ip_forward without
 * CAP_NET_ADMIN. Every step prints "ok" or the errno.
 */
#include "../lib/ulab.h"
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/veth.h>

#define VETH_A "l13a"
#define VETH_B "l13b"
#define TAP "l13t"
#define RENAMED "l13r"

/* "host netns: " when the child stays in the host's network namespace */
static const char *where = "";

static void report(const char *what, int err)
{
	if (err)
		printf("%s%s: %s (%s)\n", where, what, ulab_errname(-err),
		       strerror(-err));
	else
		printf("%s%s: ok\n", where, what);
	fflush(stdout);
}

/* ---- a minimal rtnetlink client ---- */

struct nlreq {
	union {
		struct nlmsghdr nh;
		char buf[1024];
	};
};

static void nl_init(struct nlreq *r, int type, int flags)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(0);
	r->nh.nlmsg_type = type;
	r->nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
}

static void *nl_put(struct nlreq *r, const void *data, int len)
{
	char *p = r->buf + NLMSG_ALIGN(r->nh.nlmsg_len);

	memcpy(p, data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + len;
	return p;
}

static struct rtattr *nl_attr(struct nlreq *r, int type, const void *data,
			      int len)
{
	struct rtattr *rta;

	rta = (void *)(r->buf + NLMSG_ALIGN(r->nh.nlmsg_len));
	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
	return rta;
}

static void nl_end(struct nlreq *r, struct rtattr *nest)
{
	nest->rta_len = r->buf + r->nh.nlmsg_len - (char *)nest;
}

static int nl_socket(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	return fd < 0 ? -errno : fd;
}

/*
 * Send R on the rtnetlink socket FD (a new one when FD is -1, closed after),
 * wait for the kernel's answer: 0 or -errno. On a socket of its own, R is
 * sent to the kernel's address; on a given one, it is written without an
 * address, as a program writing to a descriptor it was handed would: only
 * then does the kernel ask about the socket's opener too.
 */
static int nl_talk_on(int fd, struct nlreq *r)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[4096];
	struct nlmsghdr *nh = (void *)buf;
	int n, ret = -EIO, own = fd < 0;

	if (own)
		fd = nl_socket();
	if (fd < 0)
		return fd;
	if (own)
		n = sendto(fd, r, r->nh.nlmsg_len, 0, (void *)&sa, sizeof(sa));
	else
		n = write(fd, r, r->nh.nlmsg_len);
	if (n < 0) {
		ret = -errno;
		goto out;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0) {
		ret = -errno;
		goto out;
	}
	if (NLMSG_OK(nh, n) && nh->nlmsg_type == NLMSG_ERROR)
		ret = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
out:
	if (own)
		close(fd);
	return ret;
}

static int nl_talk(struct nlreq *r)
{
	return nl_talk_on(-1, r);
}

/* RTM_NEWLINK with IFF_UP for NAME, sent on FD (-1: a new socket) */
static int rtnl_link_up_on(int fd, const char *name)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nlreq r;

	ifi.ifi_index = if_nametoindex(name);
	if (!ifi.ifi_index)
		return -errno;
	ifi.ifi_flags = IFF_UP;
	ifi.ifi_change = IFF_UP;
	nl_init(&r, RTM_NEWLINK, 0);
	nl_put(&r, &ifi, sizeof(ifi));
	return nl_talk_on(fd, &r);
}

static int rtnl_link_up(const char *name)
{
	return rtnl_link_up_on(-1, name);
}

static int rtnl_new_veth(const char *name, const char *peer)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct rtattr *info, *data, *p;
	struct nlreq r;

	nl_init(&r, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	nl_put(&r, &ifi, sizeof(ifi));
	nl_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	info = nl_attr(&r, IFLA_LINKINFO, NULL, 0);
	nl_attr(&r, IFLA_INFO_KIND, "veth", 4);
	data = nl_attr(&r, IFLA_INFO_DATA, NULL, 0);
	p = nl_attr(&r, VETH_INFO_PEER, &ifi, sizeof(ifi));
	nl_attr(&r, IFLA_IFNAME, peer, strlen(peer) + 1);
	nl_end(&r, p);
	nl_end(&r, data);
	nl_end(&r, info);
	return nl_talk(&r);
}

static int rtnl_add_addr(const char *name, const char *addr, int prefix)
{
	struct ifaddrmsg ifa = { .ifa_family = AF_INET };
	struct in_addr in;
	struct nlreq r;

	ifa.ifa_index = if_nametoindex(name);
	if (!ifa.ifa_index)
		return -errno;
	ifa.ifa_prefixlen = prefix;
	inet_pton(AF_INET, addr, &in);
	nl_init(&r, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL);
	nl_put(&r, &ifa, sizeof(ifa));
	nl_attr(&r, IFA_LOCAL, &in, sizeof(in));
	nl_attr(&r, IFA_ADDRESS, &in, sizeof(in));
	return nl_talk(&r);
}

/* ---- the interface ioctls ---- */

/*
 * NAME into the interface name field DST of SIZE bytes, NUL-terminated: a
 * name too long for it is refused, never cut short into another name.
 */
static int copy_ifname(char *dst, size_t size, const char *name)
{
	size_t len = strlen(name);

	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(dst, name, len + 1);
	return 0;
}

/*
 * SIOCSIFFLAGS through a socket of FAMILY: an AF_UNIX socket's ioctl is
 * handled by dev_ioctl(), an AF_INET socket's by devinet_ioctl() first
 */
static int ioctl_link_up_via(int family, const char *name)
{
	struct ifreq ifr = { 0 };
	int fd, ret;

	ret = copy_ifname(ifr.ifr_name, sizeof(ifr.ifr_name), name);
	if (ret)
		return ret;
	fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		ret = -errno;
	ifr.ifr_flags |= IFF_UP;
	if (!ret && ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int ioctl_link_up(const char *name)
{
	return ioctl_link_up_via(AF_UNIX, name);
}

/* SIOCSIFNAME (dev_ioctl()): rename the device OLD, which must be down */
static int ioctl_rename(const char *old, const char *new)
{
	struct ifreq ifr = { 0 };
	int fd, ret;

	ret = copy_ifname(ifr.ifr_name, sizeof(ifr.ifr_name), old);
	if (!ret)
		ret = copy_ifname(ifr.ifr_newname, sizeof(ifr.ifr_newname),
				  new);
	if (ret)
		return ret;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCSIFNAME, &ifr) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * A tap device from /dev/net/tun (TUNSETIFF). It lives while the returned
 * descriptor is open.
 */
static int tun_new_tap(const char *name)
{
	struct ifreq ifr = { 0 };
	int fd, err;

	err = copy_ifname(ifr.ifr_name, sizeof(ifr.ifr_name), name);
	if (err)
		return err;
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* SIOCSIFADDR through an AF_INET socket: handled by devinet_ioctl() */
static int ioctl_set_addr(const char *name, const char *addr)
{
	struct ifreq ifr = { 0 };
	struct sockaddr_in *sin = (void *)&ifr.ifr_addr;
	int fd, ret;

	ret = copy_ifname(ifr.ifr_name, sizeof(ifr.ifr_name), name);
	if (ret)
		return ret;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, addr, &sin->sin_addr);
	if (ioctl(fd, SIOCSIFADDR, &ifr) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * SIOCSIFTXQLEN through an AF_UNIX socket, to the length the device already
 * has: a change of nothing, which dev_ioctl() keeps for the global
 * CAP_NET_ADMIN all the same.
 */
static int ioctl_same_txqlen(const char *name)
{
	struct ifreq ifr = { 0 };
	int fd, ret;

	ret = copy_ifname(ifr.ifr_name, sizeof(ifr.ifr_name), name);
	if (ret)
		return ret;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCGIFTXQLEN, &ifr) < 0)
		ret = -errno;
	if (!ret && ioctl(fd, SIOCSIFTXQLEN, &ifr) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* ---- sockets ---- */

static int raw_socket(int family)
{
	int fd = socket(family, SOCK_RAW | SOCK_CLOEXEC,
			family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int bind_v6_port(int port)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6 };
	int one = 1, fd, ret = 0;

	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	sa.sin6_port = htons(port);
	sa.sin6_addr = in6addr_any;
	if (bind(fd, (void *)&sa, sizeof(sa)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Bind 0.0.0.0:PORT; with USE, also listen, connect to 127.0.0.1:PORT and
 * carry a few bytes over the connection (that needs lo up).
 */
static void tcp_port(int port, int use)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int ls, cs = -1, as = -1, ret = 0;
	char buf[16] = "";

	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ls < 0 || bind(ls, (void *)&sa, sizeof(sa)) < 0)
		ret = -errno;
	report(port == 80 ? "tcp bind 0.0.0.0:80" : "tcp bind 0.0.0.0", ret);
	if (ret || !use)
		goto out;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cs = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (listen(ls, 1) < 0 || cs < 0 ||
	    connect(cs, (void *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		goto out_use;
	}
	as = accept(ls, NULL, NULL);
	if (as < 0 || write(cs, "hello", 5) != 5 ||
	    read(as, buf, sizeof(buf) - 1) != 5) {
		ret = -errno;
		goto out_use;
	}
	printf("%stcp 127.0.0.1:%d carried: %s\n", where, port, buf);
out_use:
	report("tcp connect to 127.0.0.1 and talk", ret);
out:
	if (as >= 0)
		close(as);
	if (cs >= 0)
		close(cs);
	if (ls >= 0)
		close(ls);
}

/* ---- sysctl ---- */

#define IP_FORWARD "/proc/sys/net/ipv4/ip_forward"

static void show_ip_forward(const char *where)
{
	char buf[16] = "";
	int fd = open(IP_FORWARD, O_RDONLY);

	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) < 0) {
		ulab_fail("read " IP_FORWARD);
	} else {
		buf[strcspn(buf, "\n")] = '\0';
		printf("ip_forward %s: %s\n", where, buf);
	}
	if (fd >= 0)
		close(fd);
	fflush(stdout);
}

static void show_links(const char *where)
{
	struct if_nameindex *ifs = if_nameindex(), *i;

	if (!ifs) {
		ulab_fail("if_nameindex");
		return;
	}
	printf("interfaces %s:", where);
	for (i = ifs; i->if_index; i++)
		printf(" %s", i->if_name);
	printf("\n");
	fflush(stdout);
	if_freenameindex(ifs);
}

static int in_new_netns(void *unused)
{
	int tap, fd;

	ulab_print_ids("inside");
	show_links("in the new netns");
	report("rtnetlink: set lo up", rtnl_link_up("lo"));
	report("rtnetlink: add 10.13.0.1/24 to lo",
	       rtnl_add_addr("lo", "10.13.0.1", 24));
	report("ioctl SIOCSIFFLAGS (dev_ioctl): set lo up",
	       ioctl_link_up("lo"));
	report("ioctl SIOCSIFFLAGS (devinet_ioctl): set lo up",
	       ioctl_link_up_via(AF_INET, "lo"));
	report("ioctl SIOCSIFADDR (devinet_ioctl): 10.13.1.1 on lo:13",
	       ioctl_set_addr("lo:13", "10.13.1.1"));
	report("rtnetlink: new veth pair " VETH_A "/" VETH_B,
	       rtnl_new_veth(VETH_A, VETH_B));
	report("ioctl SIOCSIFNAME (dev_ioctl): rename " VETH_B " to " RENAMED,
	       ioctl_rename(VETH_B, RENAMED));
	report("ioctl SIOCSIFNAME (dev_ioctl): rename " RENAMED " back",
	       ioctl_rename(RENAMED, VETH_B));
	tap = tun_new_tap(TAP);
	report("tun: new tap " TAP " (TUNSETIFF)", tap < 0 ? tap : 0);
	if (tap >= 0) {
		report("ioctl SIOCSIFFLAGS (dev_ioctl): set " TAP " up",
		       ioctl_link_up(TAP));
		close(tap);
	}
	show_links("in the new netns");
	report("raw socket AF_INET", raw_socket(AF_INET));
	report("raw socket AF_INET6", raw_socket(AF_INET6));
	tcp_port(80, 1);
	report("tcp bind [::]:80", bind_v6_port(80));
	show_ip_forward("in the new netns");
	report("write 1 to " IP_FORWARD, ulab_write_file(IP_FORWARD, "1\n"));
	show_ip_forward("in the new netns");

	/* what must still be refused in the new network namespace */
	ulab_effective_caps(0);
	fd = nl_socket();
	ulab_effective_caps(~0ULL);
	report("rtnetlink socket opened without CAP_NET_ADMIN, sent with it: set lo up",
	       fd < 0 ? fd : rtnl_link_up_on(fd, "lo"));
	if (fd >= 0)
		close(fd);
	fd = nl_socket();
	ulab_effective_caps(0);
	report("rtnetlink socket opened with CAP_NET_ADMIN, sent without it: set lo up",
	       fd < 0 ? fd : rtnl_link_up_on(fd, "lo"));
	ulab_effective_caps(~0ULL);
	if (fd >= 0)
		close(fd);
	report("ioctl SIOCSIFTXQLEN (dev_ioctl): lo, its own length",
	       ioctl_same_txqlen("lo"));
	ulab_effective_caps(0);
	/* open only: a write would change the setting */
	fd = open(IP_FORWARD, O_WRONLY);
	report("without CAP_NET_ADMIN: open " IP_FORWARD " for writing",
	       fd < 0 ? -errno : 0);
	ulab_effective_caps(~0ULL);
	if (fd >= 0)
		close(fd);
	return 0;
}

/* Only a user namespace: the network namespace is still the host's. */
static int in_host_netns(void *unused)
{
	int fd, ret = 0;

	ulab_print_ids("inside");
	where = "host netns: ";
	report("rtnetlink: set lo up", rtnl_link_up("lo"));
	report("ioctl SIOCSIFFLAGS (dev_ioctl): set lo up",
	       ioctl_link_up("lo"));
	report("ioctl SIOCSIFFLAGS (devinet_ioctl): set lo up",
	       ioctl_link_up_via(AF_INET, "lo"));
	/* lo is up: were it let through, the rename would be EBUSY */
	report("ioctl SIOCSIFNAME (dev_ioctl): rename lo to " RENAMED,
	       ioctl_rename("lo", RENAMED));
	report("raw socket AF_INET", raw_socket(AF_INET));
	report("raw socket AF_INET6", raw_socket(AF_INET6));
	tcp_port(80, 0);
	report("tcp bind [::]:80", bind_v6_port(80));
	/* open only: never change the host's setting */
	fd = open(IP_FORWARD, O_WRONLY);
	if (fd < 0)
		ret = -errno;
	else
		close(fd);
	report("open " IP_FORWARD " for writing", ret);
	return 0;
}

int main(int argc, char **argv)
{
	struct ulab_child child = { .fn = in_new_netns };
	int flags = CLONE_NEWUSER | CLONE_NEWNET;
	pid_t pid;

	if (argc == 2 && !strcmp(argv[1], "-U")) {
		child.fn = in_host_netns;
		flags = CLONE_NEWUSER;
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [-U]\n", argv[0]);
		return 2;
	}

	ulab_print_ids("outside");
	pid = ulab_spawn(&child, flags);
	if (pid < 0)
		ulab_die(flags & CLONE_NEWNET ?
			 "clone(CLONE_NEWUSER|CLONE_NEWNET)" :
			 "clone(CLONE_NEWUSER)");
	if (ulab_map_self(pid))
		goto kill;
	ulab_release(&child);
	return ulab_wait(pid);
kill:
	kill(pid, SIGKILL);
	ulab_wait(pid);
	return 2;
}
