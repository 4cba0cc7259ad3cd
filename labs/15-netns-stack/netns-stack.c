// SPDX-License-Identifier: GPL-2.0
/*
 * netns-stack - the rest of the network stack, used by the root of a user
 * namespace that holds a range of ids, a network namespace and a PID
 * namespace of its own (a container as a manager makes it).
 *
 *	netns-stack        new user, network and PID namespaces
 *	netns-stack -U     a new user namespace only: the network and PID
 *	                   namespaces are still the host's (must be refused)
 *
 * Run it as root. The parent maps 1000 ids (0-999 to 100000-100999) into
 * the child's user namespace, as newuidmap does for a container. The child,
 * root there, then passes credentials (SCM_CREDENTIALS) naming another pid,
 * uid and gid; sets socket options that rank, mark or repair its own
 * traffic; opens a packet socket; asks ip_tables and xfrm about its own
 * network namespace; adds and deletes a bridge, a vlan, a route and an IPv6
 * address with the old ioctls. It also tries SO_SNDBUFFORCE, which stays
 * with the host. Where either of two capabilities will do, it tries each
 * alone; an xfrm socket is also opened with CAP_NET_ADMIN and used without
 * it, and the other way round (both must be refused). With -U every step
 * is tried on the host's namespaces, and every one must be refused (a vlan
 * of the host's, l15h.15 on a tap l15h, is made and taken away by the
 * caller, root of the host, for DEL_VLAN_CMD to find). Every step prints
 * "ok" or the errno.
 */
#include "../lib/ulab.h"
#include <net/if.h>
#include <net/route.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/if_ether.h>
#include <linux/if_tun.h>
#include <linux/if_vlan.h>
#include <linux/sockios.h>
#include <linux/netlink.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/xfrm.h>

#define BRIDGE "l15br"
#define TAP "l15t"
#define VLAN "l15t.15"
#define HOST_TAP "l15h"
#define HOST_VLAN "l15h.15"
#define MAP "0 100000 1000"

/* "host netns: " when the child stays in the host's namespaces */
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

static int ret_errno(int ret)
{
	return ret < 0 ? -errno : 0;
}

/* ---- SCM_CREDENTIALS ---- */

static int scm_send(int sock, pid_t pid, uid_t uid, gid_t gid)
{
	struct ucred cred = { .pid = pid, .uid = uid, .gid = gid };

	return ulab_send_cmsg(sock, SCM_CREDENTIALS, &cred, sizeof(cred));
}

/* Receive one message and print the credentials it came with. */
static void scm_show(int sock)
{
	struct ucred cred;
	int ret = ulab_recv_cmsg(sock, SCM_CREDENTIALS, &cred, sizeof(cred),
				 MSG_DONTWAIT);

	if (ret < 0) {
		errno = -ret;
		ulab_fail("recvmsg");
		return;
	}
	if (!ret)
		printf("%sreceived: no credentials\n", where);
	else
		printf("%sreceived: pid %d uid %u gid %u\n", where,
		       (int)cred.pid, (unsigned int)cred.uid,
		       (unsigned int)cred.gid);
	fflush(stdout);
}

static void credentials(void)
{
	int sv[2], one = 1, ret;
	pid_t kid;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) ||
	    setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one))) {
		ulab_fail("socketpair");
		return;
	}
	ret = scm_send(sv[0], getpid(), 1, 1);
	report("scm: own pid, uid 1, gid 1", ret);
	if (!ret)
		scm_show(sv[1]);

	/*
	 * A child names its parent's pid: in a PID namespace of our own, 1.
	 * It first makes a PID namespace for children it will never have:
	 * its own stays the one the pid is read in, and that one decides.
	 */
	fflush(stdout);
	kid = fork();
	if (kid == 0) {
		report("unshare(CLONE_NEWPID), for children to come",
		       ret_errno(unshare(CLONE_NEWPID)));
		ret = scm_send(sv[0], getppid(), 0, 0);
		report("scm: the parent's pid, uid 0, gid 0", ret);
		_exit(ret ? 1 : 0);
	}
	if (kid < 0)
		ulab_fail("fork");
	else if (ulab_wait(kid) == 0)
		scm_show(sv[1]);
	close(sv[0]);
	close(sv[1]);
}

/* ---- socket options ---- */

static int sockopt(int family, int type, int level, int name, int val)
{
	int fd = socket(family, type | SOCK_CLOEXEC, 0), ret;

	if (fd < 0)
		return -errno;
	ret = ret_errno(setsockopt(fd, level, name, &val, sizeof(val)));
	close(fd);
	return ret;
}

/*
 * The options for which CAP_NET_RAW or CAP_NET_ADMIN will do, with only
 * the capabilities of MASK in hand, each line prefixed with WHO.
 */
static void either_cap_options(const char *who, unsigned long long mask)
{
	char what[96];

	ulab_effective_caps(mask);
	snprintf(what, sizeof(what), "%sSO_PRIORITY 7", who);
	report(what, sockopt(AF_INET, SOCK_DGRAM, SOL_SOCKET, SO_PRIORITY, 7));
	snprintf(what, sizeof(what), "%sSO_MARK 15", who);
	report(what, sockopt(AF_INET, SOCK_DGRAM, SOL_SOCKET, SO_MARK, 15));
	snprintf(what, sizeof(what), "%sIP_TRANSPARENT", who);
	report(what, sockopt(AF_INET, SOCK_DGRAM, IPPROTO_IP,
			     IP_TRANSPARENT, 1));
	snprintf(what, sizeof(what), "%sIPV6_TRANSPARENT", who);
	report(what, sockopt(AF_INET6, SOCK_DGRAM, IPPROTO_IPV6,
			     IPV6_TRANSPARENT, 1));
	ulab_effective_caps(~0ULL);
}

static void socket_options(void)
{
	report("SO_PRIORITY 7",
	       sockopt(AF_INET, SOCK_DGRAM, SOL_SOCKET, SO_PRIORITY, 7));
	report("SO_MARK 15",
	       sockopt(AF_INET, SOCK_DGRAM, SOL_SOCKET, SO_MARK, 15));
	report("IP_TRANSPARENT",
	       sockopt(AF_INET, SOCK_DGRAM, IPPROTO_IP, IP_TRANSPARENT, 1));
	report("IPV6_TRANSPARENT",
	       sockopt(AF_INET6, SOCK_DGRAM, IPPROTO_IPV6,
		       IPV6_TRANSPARENT, 1));
	report("TCP_REPAIR",
	       sockopt(AF_INET, SOCK_STREAM, IPPROTO_TCP, TCP_REPAIR, 1));
	report("SO_SNDBUFFORCE 65536",
	       sockopt(AF_INET, SOCK_DGRAM, SOL_SOCKET, SO_SNDBUFFORCE,
		       65536));
}

/* ---- protocol families ---- */

static int packet_socket(void)
{
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int iptables_info(void)
{
	struct ipt_getinfo info = { .name = "filter" };
	socklen_t len = sizeof(info);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret;

	if (fd < 0)
		return -errno;
	ret = ret_errno(getsockopt(fd, IPPROTO_IP, IPT_SO_GET_INFO, &info,
				   &len));
	close(fd);
	if (!ret)
		printf("%sip_tables filter: %u entries\n", where,
		       info.num_entries);
	return ret;
}

/*
 * Replace the filter table with one of no counters: refused as malformed
 * (EINVAL) once the capability test has passed, and nothing is changed.
 */
static int iptables_replace_empty(void)
{
	struct ipt_replace r = { .name = "filter" };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret;

	if (fd < 0)
		return -errno;
	ret = ret_errno(setsockopt(fd, IPPROTO_IP, IPT_SO_SET_REPLACE, &r,
				   sizeof(r)));
	close(fd);
	return ret;
}

static int xfrm_socket(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_XFRM);

	return fd < 0 ? -errno : fd;
}

/*
 * Dump xfrm's security associations on FD, then close it: none, here; the
 * answer is the point.
 */
static int xfrm_dump_on(int fd)
{
	struct {
		struct nlmsghdr nh;
		struct xfrm_usersa_info sa;
	} req = {
		.nh = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = XFRM_MSG_GETSA,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		},
	};
	char buf[8192];
	struct nlmsghdr *nh;
	int n, ret = -EPROTO, states = 0;

	if (fd < 0)
		return fd;
	if (send(fd, &req, sizeof(req), 0) < 0) {
		ret = -errno;
		goto out;
	}
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
		for (nh = (void *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_DONE) {
				printf("%sxfrm states: %d\n", where, states);
				ret = 0;
				goto out;
			}
			if (nh->nlmsg_type == NLMSG_ERROR) {
				ret = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
				goto out;
			}
			states++;
		}
	}
	if (n < 0)
		ret = -errno;
out:
	close(fd);
	return ret;
}

static int xfrm_dump(void)
{
	return xfrm_dump_on(xfrm_socket());
}

/*
 * rtnetlink's rule for xfrm too: the opener of the socket and the sender
 * of the message must both have CAP_NET_ADMIN over the namespace's owner.
 */
static void xfrm_subjects(void)
{
	int fd;

	ulab_effective_caps(0);
	fd = xfrm_socket();
	ulab_effective_caps(~0ULL);
	report("xfrm socket opened without CAP_NET_ADMIN, sent with it: dump",
	       xfrm_dump_on(fd));
	fd = xfrm_socket();
	ulab_effective_caps(0);
	report("xfrm socket opened with CAP_NET_ADMIN, sent without it: dump",
	       xfrm_dump_on(fd));
	ulab_effective_caps(~0ULL);
}

static int xfrm_join_group(void)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = 1 << (XFRMNLGRP_SA - 1),
	};
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_XFRM);
	int ret;

	if (fd < 0)
		return -errno;
	ret = ret_errno(bind(fd, (void *)&sa, sizeof(sa)));
	close(fd);
	return ret;
}

/* ---- devices, routes and addresses by ioctl ---- */

static int ioctl_on(int family, unsigned long req, void *arg)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret;

	if (fd < 0)
		return -errno;
	ret = ret_errno(ioctl(fd, req, arg));
	close(fd);
	return ret;
}

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

static int link_up(const char *name)
{
	struct ifreq ifr = { 0 };
	int ret;

	ret = copy_ifname(ifr.ifr_name, sizeof(ifr.ifr_name), name);
	if (ret)
		return ret;
	ret = ioctl_on(AF_INET, SIOCGIFFLAGS, &ifr);
	if (ret)
		return ret;
	ifr.ifr_flags |= IFF_UP;
	return ioctl_on(AF_INET, SIOCSIFFLAGS, &ifr);
}

static int bridge(unsigned long req)
{
	char name[IFNAMSIZ] = BRIDGE;

	return ioctl_on(AF_UNIX, req, name);
}

static int tap_device(void)
{
	struct ifreq ifr = { 0 };
	int fd, err;

	err = copy_ifname(ifr.ifr_name, sizeof(ifr.ifr_name), TAP);
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

static int vlan(int cmd, const char *dev)
{
	struct vlan_ioctl_args args = { .cmd = cmd, .u.VID = 15 };
	int ret;

	ret = copy_ifname(args.device1, sizeof(args.device1), dev);
	if (ret)
		return ret;
	return ioctl_on(AF_INET, SIOCSIFVLAN, &args);
}

static int route_add(void)
{
	struct rtentry rt = { .rt_flags = RTF_UP, .rt_dev = "lo" };
	struct sockaddr_in *dst = (void *)&rt.rt_dst;
	struct sockaddr_in *mask = (void *)&rt.rt_genmask;

	dst->sin_family = AF_INET;
	inet_pton(AF_INET, "10.15.0.0", &dst->sin_addr);
	mask->sin_family = AF_INET;
	inet_pton(AF_INET, "255.255.255.0", &mask->sin_addr);
	return ioctl_on(AF_INET, SIOCADDRT, &rt);
}

/* struct in6_ifreq of <linux/ipv6.h>, which glibc's headers do not have */
struct lab_in6_ifreq {
	struct in6_addr addr;
	unsigned int prefixlen;
	int ifindex;
};

static int addr6(unsigned long req)
{
	struct lab_in6_ifreq r = {
		.prefixlen = 64,
		.ifindex = (int)if_nametoindex("lo"),
	};

	inet_pton(AF_INET6, "fd15::1", &r.addr);
	return ioctl_on(AF_INET6, req, &r);
}

/* ---- the two children ---- */

static void families(void)
{
	report("packet socket", packet_socket());
	report("ip_tables: IPT_SO_GET_INFO filter", iptables_info());
	report("ip_tables: IPT_SO_SET_REPLACE filter, no counters",
	       iptables_replace_empty());
	report("xfrm: dump the security associations", xfrm_dump());
	report("netlink: join xfrm's group XFRMNLGRP_SA", xfrm_join_group());
	report("bridge: SIOCBRADDBR " BRIDGE, bridge(SIOCBRADDBR));
}

/*
 * Become uid 0 and gid 0 of the new user namespace (ids 100000 outside),
 * as a container's init does: the process came in with the ids of its
 * creator, which the map leaves unmapped (shown as 65534).
 */
static void become_root(void)
{
	if (setresgid(0, 0, 0) || setresuid(0, 0, 0))
		ulab_fail("setresuid(0) in the new user namespace");
	ulab_print_ids("inside");
}

static int in_new_namespaces(void *unused)
{
	int tap;

	become_root();
	printf("pid in the new PID namespace: %d\n", (int)getpid());
	report("ioctl SIOCSIFFLAGS: set lo up (lab 14)", link_up("lo"));
	credentials();
	socket_options();
	either_cap_options("with CAP_NET_RAW only: ", ULAB_CAP(CAP_NET_RAW));
	either_cap_options("with CAP_NET_ADMIN only: ", ULAB_CAP(CAP_NET_ADMIN));
	families();
	xfrm_subjects();
	tap = tap_device();
	report("tun: new tap " TAP " (lab 14)", tap < 0 ? tap : 0);
	report("vlan: ADD_VLAN_CMD 15 on " TAP, vlan(ADD_VLAN_CMD, TAP));
	report("vlan: DEL_VLAN_CMD " VLAN, vlan(DEL_VLAN_CMD, VLAN));
	if (tap >= 0)
		close(tap);
	report("route: SIOCADDRT 10.15.0.0/24 dev lo", route_add());
	report("ipv6: SIOCSIFADDR fd15::1/64 on lo", addr6(SIOCSIFADDR));
	report("ipv6: SIOCDIFADDR fd15::1/64 from lo", addr6(SIOCDIFADDR));
	report("bridge: SIOCBRDELBR " BRIDGE, bridge(SIOCBRDELBR));
	return 0;
}

/*
 * Only a user namespace: the network and PID namespaces are the host's,
 * owned by the initial user namespace, where this root has nothing. Every
 * step of the new namespaces' list is tried, and must be refused.
 */
static int in_host_namespaces(void *unused)
{
	become_root();
	where = "host netns: ";
	credentials();
	socket_options();
	families();
	report("vlan: ADD_VLAN_CMD 15 on lo", vlan(ADD_VLAN_CMD, "lo"));
	report("vlan: DEL_VLAN_CMD " HOST_VLAN, vlan(DEL_VLAN_CMD, HOST_VLAN));
	report("route: SIOCADDRT 10.15.0.0/24 dev lo", route_add());
	report("ipv6: SIOCSIFADDR fd15::1/64 on lo", addr6(SIOCSIFADDR));
	report("ipv6: SIOCDIFADDR fd15::1/64 from lo", addr6(SIOCDIFADDR));
	report("bridge: SIOCBRDELBR " BRIDGE, bridge(SIOCBRDELBR));
	return 0;
}

/*
 * For -U, as the host's root: a vlan of the host's for DEL_VLAN_CMD to
 * find (ON 1), or gone again (ON 0, which also closes the tap, FD).
 */
static int host_vlan(int on, int fd)
{
	struct ifreq ifr = { 0 };

	if (!on) {
		vlan(DEL_VLAN_CMD, HOST_VLAN);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (copy_ifname(ifr.ifr_name, sizeof(ifr.ifr_name), HOST_TAP))
		return -1;
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0 ||
	    vlan(ADD_VLAN_CMD, HOST_TAP)) {
		ulab_fail("the host's vlan " HOST_VLAN);
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct ulab_child child = { .fn = in_new_namespaces };
	int flags = CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID, tap = -1, rc;
	pid_t pid;

	if (argc == 2 && !strcmp(argv[1], "-U")) {
		child.fn = in_host_namespaces;
		flags = CLONE_NEWUSER;
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [-U]\n", argv[0]);
		return 2;
	}

	ulab_print_ids("outside");
	if (!(flags & CLONE_NEWNET))
		tap = host_vlan(1, -1);
	pid = ulab_spawn(&child, flags);
	if (pid < 0)
		ulab_die(flags & CLONE_NEWNET ?
			 "clone(CLONE_NEWUSER|CLONE_NEWNET|CLONE_NEWPID)" :
			 "clone(CLONE_NEWUSER)");
	if (ulab_write_map(pid, "uid_map", MAP) ||
	    ulab_write_map(pid, "gid_map", MAP)) {
		kill(pid, SIGKILL);
		ulab_wait(pid);
		rc = 2;
	} else {
		ulab_release(&child);
		rc = ulab_wait(pid);
	}
	if (!(flags & CLONE_NEWNET))
		host_vlan(0, tap);
	return rc;
}
