/* The censor's NFQUEUE shim: hands every packet of one netfilter queue to the inspector (its
 * parent, a Node process) over stdout and applies the verdicts the inspector writes to stdin, so
 * that every decision is TypeScript. Built by the censor kit with gcc (censor/nfq-shim-build.ts).
 *
 * stdout, per packet:  u32 id, u32 length, length bytes of the IP packet (big endian).
 * stdin, per verdict:  u32 id, u32 verdict (0 drop, 1 accept), u32 mark (0: leave it),
 *                      u32 length (0: the packet unchanged), length bytes of a replacement.
 * Exits when stdin closes (the inspector is gone: the kernel then drops what is queued). */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

static void write_all(const void *p, size_t n) {
  const char *c = p;
  while (n > 0) {
    ssize_t w = write(1, c, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      exit(3);
    }
    c += w;
    n -= (size_t)w;
  }
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa, void *d) {
  (void)qh; (void)msg; (void)d;
  struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
  unsigned char *payload = NULL;
  int len = nfq_get_payload(nfa, &payload);
  if (!ph || len < 0) return 0;
  uint32_t head[2] = {ph->packet_id, htonl((uint32_t)len)};
  write_all(head, sizeof head);
  write_all(payload, (size_t)len);
  return 0;
}

static unsigned char in[1 << 20];
static size_t in_len = 0;

/* Applies every complete verdict in the input buffer. */
static void apply_verdicts(struct nfq_q_handle *qh) {
  size_t off = 0;
  while (in_len - off >= 16) {
    uint32_t f[4];
    memcpy(f, in + off, 16);
    uint32_t id = ntohl(f[0]), verdict = ntohl(f[1]), mark = ntohl(f[2]), len = ntohl(f[3]);
    if (in_len - off < 16 + (size_t)len) break;
    const unsigned char *data = len ? in + off + 16 : NULL;
    int v = verdict ? NF_ACCEPT : NF_DROP;
    if (mark)
      nfq_set_verdict2(qh, id, v, mark, len, data);
    else
      nfq_set_verdict(qh, id, v, len, data);
    off += 16 + len;
  }
  memmove(in, in + off, in_len - off);
  in_len -= off;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: nfq-shim QUEUE\n");
    return 2;
  }
  struct nfq_handle *h = nfq_open();
  if (!h) { perror("nfq_open"); return 1; }
  struct nfq_q_handle *qh = nfq_create_queue(h, (uint16_t)atoi(argv[1]), &on_packet, NULL);
  if (!qh) { perror("nfq_create_queue"); return 1; }
  if (nfq_set_mode(qh, NFQNL_COPY_PACKET, 0xffff) < 0) { perror("nfq_set_mode"); return 1; }
  nfq_set_queue_maxlen(qh, 8192);
  int fd = nfq_fd(h);
  /* Tells the inspector the queue is bound: rules that queue to it may be installed now. */
  uint32_t ready[2] = {0, 0};
  write_all(ready, sizeof ready);
  static char buf[1 << 17];
  struct pollfd fds[2] = {{fd, POLLIN, 0}, {0, POLLIN, 0}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (fds[0].revents & POLLIN) {
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n >= 0) nfq_handle_packet(h, buf, (int)n);
      /* ENOBUFS: the kernel dropped packets it could not queue; carry on. */
    }
    if (fds[1].revents & (POLLIN | POLLHUP)) {
      ssize_t n = read(0, in + in_len, sizeof in - in_len);
      if (n <= 0) break;
      in_len += (size_t)n;
      apply_verdicts(qh);
    }
  }
  nfq_destroy_queue(qh);
  nfq_close(h);
  return 0;
}
