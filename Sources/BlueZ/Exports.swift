@_exported import Bluetooth
