#ifndef MDOC_CBLUETOOTH_SHIM_H
#define MDOC_CBLUETOOTH_SHIM_H
/* BlueZ's declarations of the kernel's Bluetooth sockets (sockaddr_l2, bdaddr_t, hci_dev_info):
   libbluetooth itself is not linked; the L2CAP target does the little it did (an address into
   bdaddr_t, an adapter's address through HCIGETDEVINFO) itself. */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/l2cap.h>
#include <bluetooth/hci.h>

/* HCIGETDEVINFO (an _IOR macro), as a value Swift can use. */
static inline unsigned long mdoc_hci_get_dev_info(void) { return HCIGETDEVINFO; }
#endif
