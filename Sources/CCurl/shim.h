#ifndef MDOC_CCURL_SHIM_H
#define MDOC_CCURL_SHIM_H
/* libcurl's declarations only: libcurl itself is not linked but loaded (dlopen) when a transfer
   first needs it (the Curl target's CurlLibrary), so an idle process maps none of it. */
#include <curl/curl.h>
#include <sys/socket.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic: typed forms Swift can call, through the
   address dlsym gave (`f`). */
typedef CURLcode (*mdoc_curl_setopt)(CURL *, CURLoption, ...);
typedef CURLcode (*mdoc_curl_getinfo)(CURL *, CURLINFO, ...);
static inline CURLcode mdoc_curl_setopt_long(void *f, CURL *h, CURLoption o, long v) { return ((mdoc_curl_setopt)f)(h, o, v); }
static inline CURLcode mdoc_curl_setopt_offset(void *f, CURL *h, CURLoption o, curl_off_t v) { return ((mdoc_curl_setopt)f)(h, o, v); }
static inline CURLcode mdoc_curl_setopt_string(void *f, CURL *h, CURLoption o, const char *v) { return ((mdoc_curl_setopt)f)(h, o, v); }
static inline CURLcode mdoc_curl_setopt_pointer(void *f, CURL *h, CURLoption o, void *v) { return ((mdoc_curl_setopt)f)(h, o, v); }
static inline CURLcode mdoc_curl_setopt_blob(void *f, CURL *h, CURLoption o, struct curl_blob *v) { return ((mdoc_curl_setopt)f)(h, o, v); }
static inline CURLcode mdoc_curl_setopt_slist(void *f, CURL *h, CURLoption o, struct curl_slist *v) { return ((mdoc_curl_setopt)f)(h, o, v); }
static inline CURLcode mdoc_curl_setopt_write(void *f, CURL *h, CURLoption o, curl_write_callback c) { return ((mdoc_curl_setopt)f)(h, o, c); }
static inline CURLcode mdoc_curl_setopt_xferinfo(void *f, CURL *h, curl_xferinfo_callback c) { return ((mdoc_curl_setopt)f)(h, CURLOPT_XFERINFOFUNCTION, c); }
static inline CURLcode mdoc_curl_setopt_opensocket(void *f, CURL *h, curl_opensocket_callback c) { return ((mdoc_curl_setopt)f)(h, CURLOPT_OPENSOCKETFUNCTION, c); }
static inline CURLcode mdoc_curl_getinfo_long(void *f, CURL *h, CURLINFO i, long *v) { return ((mdoc_curl_getinfo)f)(h, i, v); }
static inline CURLcode mdoc_curl_getinfo_string(void *f, CURL *h, CURLINFO i, char **v) { return ((mdoc_curl_getinfo)f)(h, i, v); }
static inline CURLcode mdoc_curl_getinfo_offset(void *f, CURL *h, CURLINFO i, curl_off_t *v) { return ((mdoc_curl_getinfo)f)(h, i, v); }

/* The address of a curl_sockaddr (its storage may be larger than struct sockaddr). */
static inline const struct sockaddr *mdoc_curl_sockaddr(const struct curl_sockaddr *a) { return &a->addr; }
static inline curl_socket_t mdoc_curl_socket_bad(void) { return CURL_SOCKET_BAD; }
static inline long mdoc_curl_global_default(void) { return CURL_GLOBAL_DEFAULT; }
#endif
