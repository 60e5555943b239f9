// The types this module's API uses from the bus's internal modules, which have no products of
// their own: importing ActionCoordinator is enough to name them.
@_exported import struct ActionTransport.CurveServerKeys
@_exported import enum ActionTransport.CurveKeyFile
@_exported import struct ActionWire.WireOutcome
@_exported import class ZeroMQ.ZMQContext
@_exported import struct ZeroMQ.CurveKeyPair
@_exported import struct ActionWire.FleetFeaturesReport
@_exported import struct ActionWire.FleetWorkersReport
@_exported import struct ActionWire.FleetQueuesReport
@_exported import enum ActionWire.FeatureSwitch
@_exported import struct ActionWire.WorkerCatalog
@_exported import enum ActionWire.JSONValue
