// clone3 starting a child on a stack of its own: the one piece of the spawner the C library has
// no call for. With CLONE_VM the child shares the supervisor's memory until its exec and must not
// return into the supervisor's stack frames, so it starts in a function of its own.

#define _GNU_SOURCE 1

#include "spawn_clone.h"

#include <errno.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

pid_t _supervise_clone3_running(struct supervise_clone_args *args, void (*child_main)(void *),
                                void *argument) {
#if defined(__x86_64__) && defined(SYS_clone3)
    register long result __asm__("rax") = SYS_clone3;
    register struct supervise_clone_args *arguments_register __asm__("rdi") = args;
    register size_t size_register __asm__("rsi") = sizeof(*args);
    register void (*main_register)(void *) __asm__("r12") = child_main;
    register void *argument_register __asm__("r13") = argument;
    __asm__ volatile(
        "syscall\n\t"
        "test %%rax, %%rax\n\t"
        "jnz 1f\n\t"
        // The child, on its own stack: call child_main(argument), which does not return.
        "xor %%ebp, %%ebp\n\t"
        "mov %%r13, %%rdi\n\t"
        "and $-16, %%rsp\n\t"
        "call *%%r12\n\t"
        "hlt\n\t"
        "1:\n\t"
        : "+r"(result)
        : "r"(arguments_register), "r"(size_register), "r"(main_register), "r"(argument_register)
        : "rcx", "r11", "memory");
    if (result < 0) {
        errno = (int)-result;
        return -1;
    }
    return (pid_t)result;
#elif defined(SYS_clone3)
    pid_t child = (pid_t)syscall(SYS_clone3, args, sizeof(*args));
    if (child == 0) {
        child_main(argument);
    }
    return child;
#else
    (void)args;
    (void)child_main;
    (void)argument;
    errno = ENOSYS;
    return -1;
#endif
}
