import SkwadCrypto
import SkwadModel

/// Places, reviews and replies (issue 27) for tests.
extension OpFactory {
    public mutating func place(
        by user: MasterSecret, in genesis: SignedOp, address: String = "1 Elm St", city: String = "",
        zip: String = "", landlord: String = "", rent: UInt32 = 0, rentMax: UInt32 = 0, beds: UInt32 = 0,
        termMonths: UInt32 = 0, cell: String? = nil, landlordKey: PublicKey? = nil, editing: OpID? = nil,
        location: String? = nil
    ) -> SignedOp {
        op(
            .place(
                Place(
                    target: editing, address: address, city: city, zip: zip, landlord: landlord, rentMin: rent, rentMax: rentMax,
                    beds: beds, termMonths: termMonths, cell: cell, landlordKey: landlordKey)),
            by: user, in: genesis, location: location)
    }

    /// A review: `overallHalf` 0...10, the other ratings 1...5.
    public mutating func review(
        by user: MasterSecret, in genesis: SignedOp, of place: OpID, overallHalf: UInt32, location: UInt32 = 3,
        management: UInt32 = 3, amenities: UInt32 = 3, again: Bool = true, text: String = "",
        hlc: HLC? = nil
    ) -> SignedOp {
        op(
            .review(
                Review(
                    place: place, overallHalf: overallHalf, location: location, management: management, amenities: amenities,
                    again: again, text: text)), by: user, in: genesis, hlc: hlc)
    }

    public mutating func reply(by user: MasterSecret, in genesis: SignedOp, to review: OpID, text: String = "reply") -> SignedOp {
        op(.reviewReply(ReviewReply(review: review, text: text)), by: user, in: genesis)
    }
}
