"""Content banks for the synthetic page generator: one ``Domain`` per kind of website.

Each domain knows its vocabulary (navigation, sidebar links, headlines, paragraphs), its
primary call-to-action, its form (labels, placeholders and how to compute the value a user
would enter from a persona), its irreversible (safety-critical) actions and reversible
look-alikes used as false-alarm bait, and a one-sentence statement of the page's purpose.
Everything here is plain data so that the generator stays a pure function of its seed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Persona", "FieldSpec", "Domain", "DOMAINS", "make_persona"]

FIRST = ["Maria", "James", "Aiko", "Lena", "Omar", "Priya", "Lucas", "Sofia", "Noah", "Elena",
         "Mateo", "Hana", "Jonas", "Amara", "Ravi", "Clara"]
LAST = ["Lopez", "Carter", "Tanaka", "Novak", "Haddad", "Sharma", "Moreau", "Rossi", "Berg",
        "Petrova", "Silva", "Kim", "Fischer", "Okafor", "Patel", "Jensen"]
CITIES = [("Lisbon", "1100-148"), ("Denver", "80202"), ("Osaka", "530-0001"), ("Prague", "110 00"),
          ("Toronto", "M5V 2T6"), ("Melbourne", "3000"), ("Lyon", "69002"), ("Austin", "78701"),
          ("Dublin", "D02 X285"), ("Seattle", "98101")]
STREETS = ["Elm Street", "Harbor Road", "Maple Avenue", "Station Lane", "Park Row", "Mill Street"]


@dataclass(frozen=True)
class Persona:
    """The imaginary user whose details fill the form; shown on the page as "Signed in as"."""

    first: str
    last: str
    city: str
    postcode: str
    street: str
    number: int
    phone: str
    day: int
    month: int

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def email(self) -> str:
        return f"{self.first.lower()}.{self.last.lower()}@example.com"


def make_persona(rng) -> Persona:
    """Draw a persona from ``rng`` (a ``random.Random``)."""
    city, postcode = rng.choice(CITIES)
    return Persona(first=rng.choice(FIRST), last=rng.choice(LAST), city=city, postcode=postcode,
                   street=rng.choice(STREETS), number=rng.randint(2, 180),
                   phone=f"+1 555 {rng.randint(100, 999)} {rng.randint(1000, 9999)}",
                   day=rng.randint(1, 28), month=rng.randint(1, 12))


@dataclass(frozen=True)
class FieldSpec:
    """One form field: its label, input type, placeholder and the value a user would enter."""

    key: str
    label: str
    type: str
    placeholder: str
    value: Callable[[Persona], str]


MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]

F_NAME = FieldSpec("full-name", "Full name", "text", "e.g. Jane Smith", lambda p: p.name)
F_EMAIL = FieldSpec("email", "Email address", "email", "you@example.com", lambda p: p.email)
F_PHONE = FieldSpec("phone", "Phone number", "tel", "+1 555 000 0000", lambda p: p.phone)
F_CITY = FieldSpec("city", "City", "text", "e.g. Berlin", lambda p: p.city)
F_POST = FieldSpec("postcode", "Postal code", "text", "e.g. 10115", lambda p: p.postcode)
F_STREET = FieldSpec("street", "Street address", "text", "House number and street name",
                     lambda p: f"{p.number} {p.street}")
F_DATE = FieldSpec("date", "Preferred date", "text", "DD/MM/YYYY",
                   lambda p: f"{p.day:02d}/{p.month:02d}/2027")


@dataclass(frozen=True)
class Domain:
    """Everything the generator needs to write one kind of website."""

    name: str
    sites: tuple[str, ...]
    nav: tuple[str, ...]
    side: tuple[str, ...]
    headlines: tuple[str, ...]
    sentences: tuple[str, ...]
    ctas: tuple[str, ...]
    secondary: tuple[str, ...]
    form_title: str
    fields: tuple[FieldSpec, ...]
    submit: str
    danger: tuple[str, ...]
    purpose: str
    cards: tuple[str, ...] = field(default_factory=tuple)


def _d(**kw: Any) -> Domain:
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in kw.items()}
    return Domain(**fields)


DOMAINS: dict[str, Domain] = {d.name: d for d in [
    _d(name="shop", sites=["Northwind Goods", "Pebble & Pine", "Cartwheel Market"],
       nav=["Home", "New arrivals", "Women", "Men", "Kids", "Sale", "Gift cards"],
       side=["Shoes", "Jackets", "Bags", "Accessories", "Outdoor", "Home & living", "Brands"],
       headlines=["Autumn collection is here", "Everyday essentials, fairly priced", "Gear up for the season"],
       sentences=["Free shipping on orders over $50 and free returns within 30 days.",
                  "Our jackets are made from recycled wool and organic cotton.",
                  "Members get early access to seasonal sales and exclusive colours.",
                  "Every product ships from our warehouse within two business days.",
                  "Customers rate our customer service 4.8 out of 5."],
       ctas=["Add to cart", "Shop the collection", "Buy now"],
       secondary=["View size guide", "Compare products", "Save to wishlist", "Share"],
       form_title="Delivery details", fields=[F_NAME, F_EMAIL, F_STREET, F_CITY, F_POST, F_PHONE],
       submit="Continue to shipping", danger=["Submit payment", "Delete account"],
       cards=["Wool overcoat", "Trail sneakers", "Canvas tote", "Knit beanie"],
       purpose="an online clothing store where visitors browse products and buy them"),
    _d(name="bank", sites=["Harbor Trust Bank", "Keystone Credit Union", "Meridian Bank"],
       nav=["Accounts", "Transfers", "Cards", "Loans", "Savings", "Help"],
       side=["Overview", "Checking", "Savings", "Statements", "Payees", "Settings"],
       headlines=["Banking that works around you", "Your money, clearly organised", "Save more every month"],
       sentences=["Open a checking account in minutes with no monthly fees.",
                  "Set savings goals and track your progress in one place.",
                  "Two-factor sign-in keeps your account safe.",
                  "Transfers between your own accounts are instant and free.",
                  "Our advisers are available seven days a week."],
       ctas=["Open an account", "Apply now", "Get started"],
       secondary=["Download statement", "View rates", "Contact adviser", "Print"],
       form_title="Personal information", fields=[F_NAME, F_EMAIL, F_PHONE, F_STREET, F_CITY, F_POST],
       submit="Save details", danger=["Transfer funds now", "Close account permanently"],
       cards=["Everyday checking", "High-yield savings", "Travel card", "Home loan"],
       purpose="an online banking site where customers open accounts and manage their money"),
    _d(name="travel", sites=["Skylark Travel", "Wander Lane", "Blue Compass Trips"],
       nav=["Flights", "Hotels", "Car rental", "Packages", "Deals", "My trips"],
       side=["Popular destinations", "Last-minute deals", "City breaks", "Beach holidays",
             "Travel insurance", "Gift vouchers"],
       headlines=["Find your next getaway", "Cheap flights to 400 destinations", "Plan the trip you keep postponing"],
       sentences=["Compare prices from hundreds of airlines and hotels at once.",
                  "Free cancellation on most rooms up to 24 hours before arrival.",
                  "Earn travel points on every booking and redeem them for upgrades.",
                  "Our price alerts tell you when fares drop.",
                  "Travellers rate our support team 4.7 out of 5."],
       ctas=["Search flights", "Book now", "Find hotels"],
       secondary=["Flexible dates", "View map", "Save search", "Share trip"],
       form_title="Traveller details", fields=[F_NAME, F_EMAIL, F_PHONE, F_CITY, F_DATE],
       submit="Continue", danger=["Confirm and pay", "Cancel booking permanently"],
       cards=["Lisbon city break", "Alpine lodge", "Island hopping", "Safari week"],
       purpose="a travel booking site where visitors search and book flights and hotels"),
    _d(name="news", sites=["The Morning Ledger", "Riverside Herald", "Metro Daily"],
       nav=["World", "Politics", "Business", "Science", "Sport", "Culture", "Opinion"],
       side=["Most read", "Editors' picks", "Newsletters", "Podcasts", "Weather", "Crosswords"],
       headlines=["City council approves new transit plan", "Scientists map the deep ocean floor",
                  "Local markets rally after rate decision"],
       sentences=["The plan adds three new tram lines and extends night service.",
                  "Researchers used autonomous submarines to chart the trench.",
                  "Analysts expect further gains if inflation keeps falling.",
                  "Readers can comment on every article after signing in.",
                  "Our reporters verified the figures with two independent sources."],
       ctas=["Subscribe", "Read the full story", "Sign up for the newsletter"],
       secondary=["Share article", "Save for later", "Listen", "Print"],
       form_title="Newsletter sign-up", fields=[F_NAME, F_EMAIL, F_CITY],
       submit="Sign me up", danger=["Delete account", "Unsubscribe and erase my data"],
       cards=["Opinion: housing", "Climate report", "Match analysis", "Film review"],
       purpose="a news site where readers read current articles and subscribe"),
    _d(name="social", sites=["Circlr", "Townsquare", "Kinship"],
       nav=["Feed", "Explore", "Messages", "Groups", "Events", "Profile"],
       side=["Friends", "Photos", "Saved", "Memories", "Pages", "Settings"],
       headlines=["What's happening today", "Catch up with your friends", "Share your weekend"],
       sentences=["Posts from people you follow appear in your feed first.",
                  "Create a group to plan events with your neighbours.",
                  "You control who sees each post you share.",
                  "Photos are stored in full resolution for free.",
                  "Turn on reminders so you never miss a birthday."],
       ctas=["Create post", "Join group", "Follow"],
       secondary=["Edit profile", "Invite friends", "Hide post", "Share"],
       form_title="Edit profile", fields=[F_NAME, F_EMAIL, F_CITY, F_PHONE],
       submit="Save profile", danger=["Delete account", "Permanently erase all photos"],
       cards=["Hiking club", "Book circle", "Photo walk", "Board games night"],
       purpose="a social network where people share posts and connect with friends"),
    _d(name="cloud", sites=["Nimbus Drive", "Stackwise", "Orbitly"],
       nav=["Product", "Pricing", "Docs", "Customers", "Blog", "Sign in"],
       side=["Dashboard", "Projects", "Storage", "Billing", "Team", "API keys"],
       headlines=["Ship faster with managed infrastructure", "All your files, synced everywhere",
                  "Deploy in seconds"],
       sentences=["Automatic backups keep thirty days of history for every file.",
                  "Invite your team and set permissions per folder.",
                  "Scale from one project to thousands without changing your code.",
                  "Every plan includes single sign-on and audit logs.",
                  "Our uptime over the past year was 99.99 percent."],
       ctas=["Start free trial", "Get started free", "Create project"],
       secondary=["Book a demo", "Read the docs", "Compare plans", "Export"],
       form_title="Create your workspace", fields=[F_NAME, F_EMAIL, F_PHONE, F_CITY],
       submit="Create workspace", danger=["Permanently erase data", "Delete workspace"],
       cards=["Starter plan", "Team plan", "Business plan", "Enterprise"],
       purpose="a cloud software service where teams sign up and manage projects and files"),
    _d(name="health", sites=["Clearwater Clinic", "Evergreen Health", "Sunrise Medical"],
       nav=["Find a doctor", "Services", "Locations", "Patients", "Insurance", "Contact"],
       side=["Appointments", "Test results", "Prescriptions", "Billing", "Messages", "Records"],
       headlines=["Care when you need it", "Same-day appointments available", "Your health, in one place"],
       sentences=["Book an appointment online with more than 200 specialists.",
                  "Video visits are available seven days a week.",
                  "View your test results as soon as they are ready.",
                  "Most insurance plans are accepted at all our locations.",
                  "Our clinics are open from 7am to 9pm."],
       ctas=["Book appointment", "Find a doctor", "Start video visit"],
       secondary=["View locations", "Check insurance", "Download form", "Print"],
       form_title="Patient details", fields=[F_NAME, F_EMAIL, F_PHONE, F_DATE, F_CITY],
       submit="Request appointment", danger=["Delete medical records", "Submit payment"],
       cards=["Family medicine", "Dermatology", "Physiotherapy", "Dental care"],
       purpose="a healthcare provider site where patients book appointments with doctors"),
    _d(name="education", sites=["Brightpath Academy", "Open Quill University", "Lumen Learning"],
       nav=["Courses", "Programs", "Admissions", "Campus", "Research", "About"],
       side=["My courses", "Calendar", "Grades", "Library", "Forums", "Certificates"],
       headlines=["Learn from world-class teachers", "Start your degree online",
                  "New courses every month"],
       sentences=["Choose from over 300 courses in science, arts and business.",
                  "Study at your own pace and earn a recognised certificate.",
                  "Scholarships cover up to half of the tuition fee.",
                  "Join live seminars with classmates from 80 countries.",
                  "Our graduates work at leading companies worldwide."],
       ctas=["Enroll now", "Apply today", "Browse courses"],
       secondary=["Download brochure", "Request info", "Add to calendar", "Share"],
       form_title="Application form", fields=[F_NAME, F_EMAIL, F_PHONE, F_CITY, F_DATE],
       submit="Submit application", danger=["Withdraw from program permanently", "Delete account"],
       cards=["Data science", "Creative writing", "Marketing", "Astronomy"],
       purpose="an education site where students find courses and enroll"),
]}
