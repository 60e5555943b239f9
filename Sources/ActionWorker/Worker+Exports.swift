// The types this module's API uses from the bus's internal modules, which have no products of
// their own: importing ActionWorker is enough to name them.
@_exported import struct ActionTransport.CurveClientKeys
@_exported import class ZeroMQ.ZMQContext
@_exported import struct ZeroMQ.CurveKeyPair
