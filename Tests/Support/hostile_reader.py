#!/usr/bin/python3
"""A hostile mdoc reader for the BlueZoo tier (Debian's python3-dbus): on ADAPTER it finds
the holder advertising SERVICE_UUID (mdoc peripheral-server mode), connects, and then
misbehaves as BEHAVIOUR says, holding the link until the holder lets it go or HOLD seconds
pass.

  hostile_reader.py ADAPTER SERVICE_UUID BEHAVIOUR [HOLD]

BEHAVIOUR:
  silent           connect and send nothing (no subscription, no State)
  no-subscribe     write State 0x01 and a request, never subscribe to Server2Client: the
                   holder's answer can never leave
Prints one JSON line: {"connected": true, "held": SECONDS, "released": bool}; "released" is
true when the link went down before HOLD, as either end's Device1.Connected shows (BlueZoo
updates only the side that called Disconnect: here the holder's).
"""
import json
import sys
import time

import dbus

from testpeers import BLUEZ, private_bus
STATE = "00000001-a123-48ce-896b-4c76973373e6"
CLIENT2SERVER = "00000002-a123-48ce-896b-4c76973373e6"


def objects(bus):
    manager = dbus.Interface(bus.get_object(BLUEZ, "/"), "org.freedesktop.DBus.ObjectManager")
    return manager.GetManagedObjects()


def main():
    adapter, service, behaviour = sys.argv[1], sys.argv[2].lower(), sys.argv[3]
    hold = float(sys.argv[4]) if len(sys.argv) > 4 else 60
    bus = private_bus()
    adapter_path = f"/org/bluez/{adapter}"
    dbus.Interface(bus.get_object(BLUEZ, adapter_path), "org.bluez.Adapter1").StartDiscovery()
    device = None
    deadline = time.time() + 20
    while device is None and time.time() < deadline:
        for path, interfaces in objects(bus).items():
            d = interfaces.get("org.bluez.Device1")
            if d and path.startswith(adapter_path + "/") and service in [str(u).lower() for u in d.get("UUIDs", [])]:
                device = path
        time.sleep(0.1)
    if device is None:
        sys.exit("no device serving " + service)
    dbus.Interface(bus.get_object(BLUEZ, device), "org.bluez.Device1").Connect()
    chars = {}
    deadline = time.time() + 10
    while len(chars) < 2 and time.time() < deadline:
        for path, interfaces in objects(bus).items():
            c = interfaces.get("org.bluez.GattCharacteristic1")
            if c and path.startswith(device + "/"):
                chars[str(c["UUID"]).lower()] = path
        time.sleep(0.1)

    def write(uuid, value):
        char = dbus.Interface(bus.get_object(BLUEZ, chars[uuid]), "org.bluez.GattCharacteristic1")
        char.WriteValue(dbus.Array(value, signature="y"), {"type": dbus.String("command")})

    if behaviour == "no-subscribe":
        write(STATE, [0x01])
        # One chunk, "last", holding a CBOR map the holder cannot take as SessionEstablishment:
        # it answers with status 10, which can never leave.
        write(CLIENT2SERVER, [0x00, 0xA1, 0x01, 0x02])
    elif behaviour != "silent":
        sys.exit("unknown behaviour " + behaviour)
    start = time.time()
    released = False
    own = str(objects(bus)[adapter_path]["org.bluez.Adapter1"]["Address"])
    while time.time() - start < hold:
        # The link as either end sees it: our Device1 of the holder, or the holder adapter's
        # Device1 of us (BlueZoo updates only the side that called Disconnect).
        ends = [interfaces["org.bluez.Device1"] for path, interfaces in objects(bus).items()
                if "org.bluez.Device1" in interfaces
                and (path == device or str(interfaces["org.bluez.Device1"].get("Address")) == own)]
        if len(ends) < 2 or not all(bool(d.get("Connected")) for d in ends):
            released = True
            break
        time.sleep(0.2)
    print(json.dumps({"connected": True, "held": round(time.time() - start, 1), "released": released}), flush=True)


if __name__ == "__main__":
    main()
