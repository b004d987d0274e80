#define _GNU_SOURCE 1

#include "supervise_netlink.h"

#include <errno.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

const uint32_t _supervise_route_groups = RTMGRP_LINK | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
const uint32_t _supervise_uevent_group = 1;
const int _supervise_netlink_route = NETLINK_ROUTE;
const int _supervise_netlink_uevent = NETLINK_KOBJECT_UEVENT;
const uint32_t _supervise_link_up_and_running = IFF_UP | IFF_RUNNING;

int _supervise_netlink_open(int protocol, uint32_t groups) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
    if (fd < 0) return -1;
    struct sockaddr_nl address;
    memset(&address, 0, sizeof address);
    address.nl_family = AF_NETLINK;
    address.nl_groups = groups;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int _supervise_netlink_drain(int fd) {
    char buffer[8192];
    int count = 0;
    for (;;) {
        ssize_t got = recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
        if (got >= 0) {
            count++;
            continue;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return count;
        return -1;
    }
}

int _supervise_link_flags(const char *name, uint32_t *flags) {
    struct ifreq request;
    memset(&request, 0, sizeof request);
    if (strlen(name) >= sizeof request.ifr_name) {
        errno = ENODEV;
        return -1;
    }
    strcpy(request.ifr_name, name);
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) return -1;
    int result;
    do result = ioctl(fd, SIOCGIFFLAGS, &request); while (result != 0 && errno == EINTR);
    int saved = errno;
    close(fd);
    errno = saved;
    if (result != 0) return -1;
    *flags = (uint16_t)request.ifr_flags;
    return 0;
}
