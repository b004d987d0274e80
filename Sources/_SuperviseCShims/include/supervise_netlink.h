#ifndef SUPERVISE_NETLINK_H
#define SUPERVISE_NETLINK_H

#include <stdint.h>

/// The multicast groups a route watch joins: links (RTMGRP_LINK), IPv4 and IPv6 routes.
extern const uint32_t _supervise_route_groups;
/// The kernel's uevent group of NETLINK_KOBJECT_UEVENT.
extern const uint32_t _supervise_uevent_group;
/// NETLINK_ROUTE and NETLINK_KOBJECT_UEVENT.
extern const int _supervise_netlink_route;
extern const int _supervise_netlink_uevent;

/// Opens a netlink socket of `protocol`, non-blocking and close-on-exec, bound to the
/// multicast `groups`: it becomes readable when the kernel announces a change. Returns the
/// descriptor, or -1 with errno.
int _supervise_netlink_open(int protocol, uint32_t groups);

/// Reads and drops every message waiting on a netlink socket. Returns how many, or -1 with
/// errno (ENOBUFS: some were lost, which only means something changed).
int _supervise_netlink_drain(int fd);

/// The interface flags (SIOCGIFFLAGS) of link `name` in the calling thread's network
/// namespace: 0 and `*flags`, or -1 with errno (ENODEV: no such link).
int _supervise_link_flags(const char * _Nonnull name, uint32_t * _Nonnull flags);

/// IFF_UP and IFF_RUNNING: the link is up and has a carrier.
extern const uint32_t _supervise_link_up_and_running;

#endif
