// Batched UDP for the nameserver (nameserver/server/nativeUdp.ts): a socket of its own with
// SO_REUSEPORT, datagrams read with recvmmsg and answered with sendmmsg, which Node's dgram does
// not do (one recvmsg and one sendmsg per datagram). Only the Node-API C interface and libuv,
// whose ABI stays the same across Node versions, so one build loads on Node 20, 22 and 24.
//
// Receiving: the socket is watched by a uv_poll_t on the loop of the thread that started it;
// when readable, recvmmsg fills the slots of one buffer that JavaScript allocated once, with the
// lengths and source addresses in typed arrays it also allocated once, and one call into
// JavaScript hands over the batch (its size only). A wake-up reads at most MAX_ROUNDS batches so
// that other work on the loop (TCP, timers, the API) keeps its turn; the poll is level-triggered,
// so what is left is read at the next turn.
//
// Sending: one call with the answers in one buffer, their lengths, addresses and ports; sendmmsg
// until all are out. A full socket buffer (EAGAIN) drops the rest, as Knot does and as UDP allows:
// the event loop never blocks on a send, the client retries.
#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#define MAX_BATCH 64
#define MAX_ROUNDS 4
#define MAX_ADDRESS_TEXT 64

typedef struct {
  napi_env env;
  int fd;
  int closed;
  // Set while the environment is torn down (a worker thread ending): the close completes it.
  int tearing_down;
  napi_async_cleanup_hook_handle cleanup;
  // The Receiver is freed once both its poll handle has closed and JavaScript's handle to it is
  // collected: a close() called twice never reads freed memory.
  int poll_closed;
  int handle_collected;
  uv_poll_t *poll;
  napi_ref on_batch;
  napi_ref arrays[5];
  napi_async_context async;
  uint8_t *data;
  size_t slot;
  uint32_t batch;
  uint32_t *lengths;
  uint8_t *families;
  uint8_t *addresses;
  uint16_t *ports;
  struct mmsghdr msgs[MAX_BATCH];
  struct iovec iovs[MAX_BATCH];
  struct sockaddr_storage peers[MAX_BATCH];
} Receiver;

static napi_value throw_errno(napi_env env, const char *what, int err) {
  char message[160];
  snprintf(message, sizeof message, "%s: %s", what, strerror(err));
  napi_throw_error(env, uv_err_name(-err), message);
  return NULL;
}

static napi_value throw_type(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

// The first `count` arguments of a call; false when fewer were given.
static int get_args(napi_env env, napi_callback_info info, size_t count, napi_value *argv) {
  size_t argc = count;
  return napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok && argc >= count;
}

static int parse_address(const char *text, int port, struct sockaddr_storage *out, socklen_t *len) {
  memset(out, 0, sizeof *out);
  struct sockaddr_in *v4 = (struct sockaddr_in *)out;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)out;
  if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    *len = sizeof *v4;
    return 1;
  }
  if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    *len = sizeof *v6;
    return 1;
  }
  return 0;
}

static int get_string(napi_env env, napi_value value, char *out, size_t size) {
  size_t written;
  return napi_get_value_string_utf8(env, value, out, size, &written) == napi_ok && written < size - 1;
}

static int bind_socket(const struct sockaddr_storage *address, socklen_t len, int reuse_port, int receive_buffer, int *err) {
  int fd = socket(address->ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *err = errno;
    return -1;
  }
  int on = 1;
  if (address->ss_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
  if (reuse_port && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) != 0) {
    *err = errno;
    close(fd);
    return -1;
  }
  // Capped by net.core.rmem_max: the default stays when the system allows less.
  if (receive_buffer > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
  if (bind(fd, (const struct sockaddr *)address, len) != 0) {
    *err = errno;
    close(fd);
    return -1;
  }
  return fd;
}

// open(host, port, receiveBuffer, exclusive) -> [fd, port]. With `exclusive` the port is first
// bound without SO_REUSEPORT: a port some other socket holds (even one with SO_REUSEPORT, another
// service of the same user) is refused with EADDRINUSE instead of shared by mistake.
static napi_value open_socket(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!get_args(env, info, 4, argv)) return throw_type(env, "open(host, port, receiveBuffer, exclusive)");
  char host[MAX_ADDRESS_TEXT];
  int32_t port, receive_buffer;
  bool exclusive;
  if (!get_string(env, argv[0], host, sizeof host) || napi_get_value_int32(env, argv[1], &port) != napi_ok ||
      napi_get_value_int32(env, argv[2], &receive_buffer) != napi_ok || napi_get_value_bool(env, argv[3], &exclusive) != napi_ok || port < 0 ||
      port > 65535)
    return throw_type(env, "open(host: string, port: 0-65535, receiveBuffer: number, exclusive: boolean)");
  struct sockaddr_storage address;
  socklen_t len;
  if (!parse_address(host, port, &address, &len)) return throw_type(env, "open: host is no IPv4 or IPv6 address");
  int err = 0;
  if (exclusive) {
    int probe = bind_socket(&address, len, 0, 0, &err);
    if (probe < 0) return throw_errno(env, "bind", err);
    if (port == 0) {
      // Port 0: keep the one the system chose for the probe.
      struct sockaddr_storage chosen;
      socklen_t chosen_len = sizeof chosen;
      getsockname(probe, (struct sockaddr *)&chosen, &chosen_len);
      if (address.ss_family == AF_INET) ((struct sockaddr_in *)&address)->sin_port = ((struct sockaddr_in *)&chosen)->sin_port;
      else ((struct sockaddr_in6 *)&address)->sin6_port = ((struct sockaddr_in6 *)&chosen)->sin6_port;
    }
    close(probe);
  }
  int fd = bind_socket(&address, len, 1, receive_buffer, &err);
  if (fd < 0) return throw_errno(env, "bind", err);
  struct sockaddr_storage bound;
  socklen_t bound_len = sizeof bound;
  if (getsockname(fd, (struct sockaddr *)&bound, &bound_len) != 0) {
    err = errno;
    close(fd);
    return throw_errno(env, "getsockname", err);
  }
  int bound_port = ntohs(bound.ss_family == AF_INET ? ((struct sockaddr_in *)&bound)->sin_port : ((struct sockaddr_in6 *)&bound)->sin6_port);
  napi_value result, fd_value, port_value;
  napi_create_array_with_length(env, 2, &result);
  napi_create_int32(env, fd, &fd_value);
  napi_create_int32(env, bound_port, &port_value);
  napi_set_element(env, result, 0, fd_value);
  napi_set_element(env, result, 1, port_value);
  return result;
}

static void on_poll_closed(uv_handle_t *handle) {
  Receiver *r = handle->data;
  if (r->tearing_down) napi_remove_async_cleanup_hook(r->cleanup);
  free(handle);
  r->poll_closed = 1;
  if (r->handle_collected) free(r);
}

// Stops the poll and closes the socket; `release` also drops the JavaScript references (not
// possible once the environment is being torn down).
static void stop_receiver(Receiver *r, int release) {
  if (r->closed) return;
  r->closed = 1;
  uv_poll_stop(r->poll);
  if (release) {
    napi_delete_reference(r->env, r->on_batch);
    for (int i = 0; i < 5; i++) napi_delete_reference(r->env, r->arrays[i]);
    napi_async_destroy(r->env, r->async);
  }
  close(r->fd);
  uv_close((uv_handle_t *)r->poll, on_poll_closed);
}

// The environment ends with the socket open (a worker thread stopped, process.exit): its loop
// must not close with our handle on it, so teardown waits until uv_close has completed.
static void cleanup_hook(napi_async_cleanup_hook_handle handle, void *arg) {
  Receiver *r = arg;
  r->tearing_down = 1;
  stop_receiver(r, 0);
}

static uint32_t read_batch(Receiver *r) {
  for (uint32_t i = 0; i < r->batch; i++) {
    r->iovs[i].iov_base = r->data + (size_t)i * r->slot;
    r->iovs[i].iov_len = r->slot;
    memset(&r->msgs[i].msg_hdr, 0, sizeof r->msgs[i].msg_hdr);
    r->msgs[i].msg_hdr.msg_iov = &r->iovs[i];
    r->msgs[i].msg_hdr.msg_iovlen = 1;
    r->msgs[i].msg_hdr.msg_name = &r->peers[i];
    r->msgs[i].msg_hdr.msg_namelen = sizeof r->peers[i];
  }
  int n;
  do n = recvmmsg(r->fd, r->msgs, r->batch, MSG_DONTWAIT, NULL);
  while (n < 0 && errno == EINTR);
  if (n <= 0) return 0;
  for (int i = 0; i < n; i++) {
    struct sockaddr_storage *peer = &r->peers[i];
    // A datagram longer than its slot arrives cut short: marked as length 0, JavaScript drops it.
    r->lengths[i] = (r->msgs[i].msg_hdr.msg_flags & MSG_TRUNC) ? 0 : r->msgs[i].msg_len;
    if (peer->ss_family == AF_INET) {
      struct sockaddr_in *v4 = (struct sockaddr_in *)peer;
      r->families[i] = 4;
      memcpy(r->addresses + i * 16, &v4->sin_addr, 4);
      r->ports[i] = ntohs(v4->sin_port);
    } else {
      struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)peer;
      r->families[i] = 6;
      memcpy(r->addresses + i * 16, &v6->sin6_addr, 16);
      r->ports[i] = ntohs(v6->sin6_port);
    }
  }
  return (uint32_t)n;
}

static void on_readable(uv_poll_t *handle, int status, int events) {
  Receiver *r = handle->data;
  if (status < 0 || r->closed) return;
  napi_env env = r->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value callback, global, count, ignored;
  napi_get_reference_value(env, r->on_batch, &callback);
  napi_get_global(env, &global);
  for (int round = 0; round < MAX_ROUNDS && !r->closed; round++) {
    uint32_t n = read_batch(r);
    if (n == 0) break;
    napi_create_uint32(env, n, &count);
    // make_callback: microtasks and nextTicks queued by the batch run after it, as after a dgram event.
    if (napi_make_callback(env, r->async, global, callback, 1, &count, &ignored) == napi_pending_exception) {
      napi_value error;
      napi_get_and_clear_last_exception(env, &error);
      napi_fatal_exception(env, error);
      break;
    }
    if (n < r->batch) break;
  }
  napi_close_handle_scope(env, scope);
}

static int typed_array(napi_env env, napi_value value, napi_typedarray_type type, void **data, size_t *length) {
  bool is;
  napi_typedarray_type actual;
  napi_value buffer;
  size_t offset;
  if (napi_is_typedarray(env, value, &is) != napi_ok || !is) return 0;
  if (napi_get_typedarray_info(env, value, &actual, length, data, &buffer, &offset) != napi_ok) return 0;
  return actual == type;
}

// A receiver JavaScript let go of without close() keeps answering until the process ends, as an
// unclosed dgram socket would; its memory goes once it is closed.
static void finalize_receiver(napi_env env, void *data, void *hint) {
  Receiver *r = data;
  r->handle_collected = 1;
  if (r->poll_closed) free(r);
}

// receive(fd, onBatch, data, lengths, families, addresses, ports) -> handle. `lengths.length` is
// the batch (at most 64); `data` holds that many slots of equal size; `addresses` 16 octets each.
// onBatch(count) is called with the number of datagrams now in the slots.
static napi_value receive(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  if (!get_args(env, info, 7, argv)) return throw_type(env, "receive: 7 arguments");
  int32_t fd;
  napi_valuetype kind;
  if (napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) return throw_type(env, "receive: fd");
  if (napi_typeof(env, argv[1], &kind) != napi_ok || kind != napi_function) return throw_type(env, "receive: onBatch is no function");
  void *data, *lengths, *families, *addresses, *ports;
  size_t data_len, batch, families_len, addresses_len, ports_len;
  if (!typed_array(env, argv[2], napi_uint8_array, &data, &data_len) || !typed_array(env, argv[3], napi_uint32_array, &lengths, &batch) ||
      !typed_array(env, argv[4], napi_uint8_array, &families, &families_len) ||
      !typed_array(env, argv[5], napi_uint8_array, &addresses, &addresses_len) || !typed_array(env, argv[6], napi_uint16_array, &ports, &ports_len))
    return throw_type(env, "receive: data Uint8Array, lengths Uint32Array, families Uint8Array, addresses Uint8Array, ports Uint16Array");
  if (batch == 0 || batch > MAX_BATCH || families_len < batch || addresses_len < batch * 16 || ports_len < batch || data_len / batch < 512)
    return throw_type(env, "receive: arrays too short for the batch (1-64)");
  uv_loop_t *loop;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok) return throw_type(env, "receive: no event loop");
  Receiver *r = calloc(1, sizeof *r);
  uv_poll_t *poll = calloc(1, sizeof *poll);
  if (!r || !poll) {
    free(r);
    free(poll);
    return throw_errno(env, "receive", ENOMEM);
  }
  r->env = env;
  r->fd = fd;
  r->poll = poll;
  r->data = data;
  r->batch = (uint32_t)batch;
  r->slot = data_len / batch;
  r->lengths = lengths;
  r->families = families;
  r->addresses = addresses;
  r->ports = ports;
  poll->data = r;
  int err = uv_poll_init(loop, poll, fd);
  if (err != 0) {
    free(r);
    free(poll);
    return throw_errno(env, "uv_poll_init", -err);
  }
  napi_create_reference(env, argv[1], 1, &r->on_batch);
  for (int i = 0; i < 5; i++) napi_create_reference(env, argv[2 + i], 1, &r->arrays[i]);
  napi_value name;
  napi_create_string_utf8(env, "BatchedUdp", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, NULL, name, &r->async);
  napi_add_async_cleanup_hook(env, cleanup_hook, r, &r->cleanup);
  uv_poll_start(poll, UV_READABLE, on_readable);
  napi_value handle;
  napi_create_external(env, r, finalize_receiver, NULL, &handle);
  return handle;
}

static napi_value close_receiver(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  void *data = NULL;
  napi_valuetype kind;
  if (!get_args(env, info, 1, argv) || napi_typeof(env, argv[0], &kind) != napi_ok ||
      kind != napi_external || napi_get_value_external(env, argv[0], &data) != napi_ok)
    return throw_type(env, "close(handle)");
  Receiver *r = data;
  if (!r->closed) {
    napi_remove_async_cleanup_hook(r->cleanup);
    stop_receiver(r, 1);
  }
  return NULL;
}

// closeFd(fd): a socket opened but never handed to receive().
static napi_value close_fd(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int32_t fd;
  if (!get_args(env, info, 1, argv) || napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0)
    return throw_type(env, "closeFd(fd)");
  close(fd);
  return NULL;
}

// send(fd, data, count, lengths, addresses, ports) -> answers sent. The answers lie one after the
// other in `data`; `addresses` holds their destinations as text. An answer whose address the
// socket cannot use is skipped; the others still go.
static napi_value send_batch(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  if (!get_args(env, info, 6, argv)) return throw_type(env, "send: 6 arguments");
  int32_t fd;
  uint32_t count;
  void *data, *lengths, *ports;
  size_t data_len, lengths_len, ports_len;
  bool is_array;
  uint32_t addresses_len;
  if (napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0 || !typed_array(env, argv[1], napi_uint8_array, &data, &data_len) ||
      napi_get_value_uint32(env, argv[2], &count) != napi_ok || !typed_array(env, argv[3], napi_uint32_array, &lengths, &lengths_len) ||
      napi_is_array(env, argv[4], &is_array) != napi_ok || !is_array || napi_get_array_length(env, argv[4], &addresses_len) != napi_ok ||
      !typed_array(env, argv[5], napi_uint16_array, &ports, &ports_len))
    return throw_type(env, "send(fd, data: Uint8Array, count, lengths: Uint32Array, addresses: string[], ports: Uint16Array)");
  if (count > lengths_len || count > addresses_len || count > ports_len) return throw_type(env, "send: count beyond the arrays");
  struct mmsghdr msgs[MAX_BATCH];
  struct iovec iovs[MAX_BATCH];
  struct sockaddr_storage peers[MAX_BATCH];
  uint32_t sent = 0;
  size_t offset = 0;
  uint32_t next = 0;
  while (next < count) {
    // Fill up to MAX_BATCH messages, skipping answers that cannot be addressed.
    uint32_t n = 0;
    for (; next < count && n < MAX_BATCH; next++) {
      uint32_t len = ((uint32_t *)lengths)[next];
      if (len > data_len - offset) return throw_type(env, "send: lengths beyond the data");
      char text[MAX_ADDRESS_TEXT];
      napi_value address;
      socklen_t peer_len;
      size_t at = offset;
      offset += len;
      if (napi_get_element(env, argv[4], next, &address) != napi_ok || !get_string(env, address, text, sizeof text) ||
          !parse_address(text, ((uint16_t *)ports)[next], &peers[n], &peer_len))
        continue;
      iovs[n].iov_base = (uint8_t *)data + at;
      iovs[n].iov_len = len;
      memset(&msgs[n].msg_hdr, 0, sizeof msgs[n].msg_hdr);
      msgs[n].msg_hdr.msg_iov = &iovs[n];
      msgs[n].msg_hdr.msg_iovlen = 1;
      msgs[n].msg_hdr.msg_name = &peers[n];
      msgs[n].msg_hdr.msg_namelen = peer_len;
      n++;
    }
    uint32_t done = 0;
    while (done < n) {
      int k = sendmmsg(fd, msgs + done, n - done, MSG_DONTWAIT);
      if (k > 0) {
        done += (uint32_t)k;
        sent += (uint32_t)k;
      } else if (k < 0 && errno == EINTR) {
        continue;
      } else if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)) {
        // The socket's send buffer is full: the rest of the answers are dropped.
        goto full;
      } else {
        // This answer cannot be sent (an address of the other family, unreachable): skip it.
        done++;
      }
    }
  }
full:;
  napi_value result;
  napi_create_uint32(env, sent, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor properties[] = {
    {"open", NULL, open_socket, NULL, NULL, NULL, napi_enumerable, NULL},
    {"receive", NULL, receive, NULL, NULL, NULL, napi_enumerable, NULL},
    {"close", NULL, close_receiver, NULL, NULL, NULL, napi_enumerable, NULL},
    {"closeFd", NULL, close_fd, NULL, NULL, NULL, napi_enumerable, NULL},
    {"send", NULL, send_batch, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  napi_value batch;
  napi_create_uint32(env, MAX_BATCH, &batch);
  napi_set_named_property(env, exports, "maxBatch", batch);
  return exports;
}
