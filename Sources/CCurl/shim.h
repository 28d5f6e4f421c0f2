#ifndef MDOC_CCURL_SHIM_H
#define MDOC_CCURL_SHIM_H
#include <curl/curl.h>
#include <sys/socket.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic: typed forms Swift can call. */
static inline CURLcode mdoc_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mdoc_curl_setopt_offset(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mdoc_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mdoc_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mdoc_curl_setopt_blob(CURL *h, CURLoption o, struct curl_blob *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mdoc_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mdoc_curl_setopt_write(CURL *h, CURLoption o, curl_write_callback f) { return curl_easy_setopt(h, o, f); }
static inline CURLcode mdoc_curl_setopt_xferinfo(CURL *h, curl_xferinfo_callback f) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
static inline CURLcode mdoc_curl_setopt_opensocket(CURL *h, curl_opensocket_callback f) { return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, f); }
static inline CURLcode mdoc_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode mdoc_curl_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode mdoc_curl_getinfo_offset(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }

/* The address of a curl_sockaddr (its storage may be larger than struct sockaddr). */
static inline const struct sockaddr *mdoc_curl_sockaddr(const struct curl_sockaddr *a) { return &a->addr; }
static inline curl_socket_t mdoc_curl_socket_bad(void) { return CURL_SOCKET_BAD; }
static inline CURLcode mdoc_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }
#endif
