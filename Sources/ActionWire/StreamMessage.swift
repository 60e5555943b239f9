/// What the coordinator publishes on the outcome stream.
public enum StreamMessage: Sendable, Hashable {
    /// EVENT: topic, header, sequences (6 × u64, big-endian), then the ``WireOutcome`` frames.
    case event(topic: [UInt8], sequences: OutcomeSequences, outcome: WireOutcome)
    /// SUBSCRIBED: topic (the subscription prefix), header, the coordinator's instance. Tells a
    /// new subscriber its subscription has reached the coordinator, so nothing after it is
    /// missed; a SUBSCRIBED from another instance (the SUB socket resubscribes by itself after
    /// a reconnection) tells it the coordinator restarted, so outcomes in between may be lost.
    case subscribed(topic: [UInt8], instance: String)

    /// Appends the message's frames to `writer`.
    public func encode<Writer: WireFrameWriter>(into writer: inout Writer) {
        switch self {
        case .event(let topic, let sequences, let outcome):
            writer.append(topic)
            writer.append(WireHeader.bytes(.event))
            writer.append(sequences.bytes)
            outcome.encode(into: &writer)
        case .subscribed(let topic, let instance):
            writer.append(topic)
            writer.append(WireHeader.bytes(.subscribed))
            writer.append(instance)
        }
    }

    /// Decodes a message received on a SUB socket.
    public static func decode<Frames: WireFrames>(
        _ frames: Frames, limits: WireLimits = WireLimits()
    ) throws(WireError) -> StreamMessage {
        guard frames.count >= 2 else { throw WireError(.truncated, "stream message needs a topic and a header") }
        let topic = Array(frames.frame(at: 0))
        let command = try WireHeader.command(in: frames.frame(at: 1))
        var reader = FrameReader(frames, at: 2, limits: limits, command: command)
        let message: StreamMessage
        switch command {
        case .event:
            let sequences = OutcomeSequences(bytes: try reader.fixed("sequences", size: OutcomeSequences.byteCount))
            message = .event(topic: topic, sequences: sequences, outcome: try WireOutcome(reading: &reader))
        case .subscribed:
            message = .subscribed(topic: topic, instance: try reader.name("instance"))
        default:
            throw WireError(.unknownCommand, "\(command) is not a stream message")
        }
        try reader.end()
        return message
    }
}
