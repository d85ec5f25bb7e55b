// Linux's epoll, which Swift's Glibc module leaves out: what CRUDEventLoop waits on. Darwin's
// kqueue comes with its Darwin module, so there this is empty.
#ifdef __linux__
#include <sys/epoll.h>
#endif
