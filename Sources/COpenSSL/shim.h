#ifndef MDOC_COPENSSL_SHIM_H
#define MDOC_COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/obj_mac.h>
#include <openssl/objects.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>

/* Function-like macros of OpenSSL, as functions Swift can call. */
static inline void mdoc_openssl_free(void *p) { OPENSSL_free(p); }
static inline int mdoc_sk_X509_num(const STACK_OF(X509) *s) { return sk_X509_num(s); }
static inline X509 *mdoc_sk_X509_value(const STACK_OF(X509) *s, int i) { return sk_X509_value(s, i); }
static inline STACK_OF(X509) *mdoc_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int mdoc_sk_X509_push(STACK_OF(X509) *s, X509 *x) { return sk_X509_push(s, x); }
static inline void mdoc_sk_X509_free(STACK_OF(X509) *s) { sk_X509_free(s); }
static inline int mdoc_sk_GENERAL_NAME_num(const STACK_OF(GENERAL_NAME) *s) { return sk_GENERAL_NAME_num(s); }
static inline GENERAL_NAME *mdoc_sk_GENERAL_NAME_value(const STACK_OF(GENERAL_NAME) *s, int i) { return sk_GENERAL_NAME_value(s, i); }
static inline void mdoc_GENERAL_NAMES_free(GENERAL_NAMES *g) { GENERAL_NAMES_free(g); }
static inline int mdoc_sk_ASN1_OBJECT_num(const STACK_OF(ASN1_OBJECT) *s) { return sk_ASN1_OBJECT_num(s); }
static inline ASN1_OBJECT *mdoc_sk_ASN1_OBJECT_value(const STACK_OF(ASN1_OBJECT) *s, int i) { return sk_ASN1_OBJECT_value(s, i); }
static inline void mdoc_EXTENDED_KEY_USAGE_free(EXTENDED_KEY_USAGE *e) { EXTENDED_KEY_USAGE_free(e); }
/* Compound constant macros Swift cannot import (MdocCrypto). */
static inline int mdoc_EVP_PKEY_KEYPAIR(void) { return EVP_PKEY_KEYPAIR; }
static inline int mdoc_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int mdoc_EVP_PKEY_KEY_PARAMETERS(void) { return EVP_PKEY_KEY_PARAMETERS; }
static inline unsigned long mdoc_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }
#endif
