"""Eighty realistic, distinct tools (as an agent platform might register), for retrieval tests."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, create_model

from colmeia.tools import Tool

# (name, description, [(parameter, description), ...])
CATALOG: list[tuple[str, str, list[tuple[str, str]]]] = [
    (
        "weather_forecast",
        "Weather forecast for a city for the next days: temperature, rain and wind.",
        [("city", "City name")],
    ),
    (
        "currency_convert",
        "Convert an amount of money from one currency to another at today's exchange rate.",
        [("amount", "Amount"), ("from_currency", "ISO code"), ("to_currency", "ISO code")],
    ),
    (
        "translate_text",
        "Translate text between languages such as Portuguese, Spanish and English.",
        [("text", "Text to translate"), ("target_language", "Language code")],
    ),
    (
        "send_email",
        "Send an e-mail message to a recipient with a subject and body.",
        [("to", "Recipient address"), ("subject", "Subject line"), ("body", "Message body")],
    ),
    (
        "read_inbox",
        "List the latest e-mails received in the user's inbox.",
        [("limit", "How many messages")],
    ),
    (
        "create_calendar_event",
        "Create a meeting or appointment in the calendar at a date and time.",
        [("title", "Event title"), ("start", "Start date and time")],
    ),
    (
        "list_calendar_events",
        "List calendar appointments and meetings for a given day.",
        [("day", "Date")],
    ),
    (
        "lookup_order",
        "Look up a customer order by its number: items, status, dates and amount paid.",
        [("order_id", "Order number")],
    ),
    (
        "track_shipment",
        "Track the delivery of a parcel with the carrier's tracking code.",
        [("tracking_code", "Carrier tracking code")],
    ),
    (
        "check_refund_policy",
        "Check the store's refund and return policy for a product category.",
        [("category", "Product category")],
    ),
    (
        "issue_refund",
        "Issue a refund of an order's payment back to the customer.",
        [("order_id", "Order number"), ("amount", "Amount to refund")],
    ),
    (
        "open_support_ticket",
        "Open a customer support ticket describing a problem.",
        [("summary", "Short summary")],
    ),
    (
        "search_products",
        "Search the product catalogue by keywords, brand or category.",
        [("query", "Keywords")],
    ),
    (
        "product_stock",
        "How many units of a product are in stock in each warehouse.",
        [("sku", "Product SKU")],
    ),
    (
        "update_price",
        "Change the selling price of a product in the catalogue.",
        [("sku", "Product SKU"), ("price", "New price")],
    ),
    (
        "customer_profile",
        "Customer profile: name, contact details, address and loyalty tier.",
        [("customer_id", "Customer id")],
    ),
    (
        "loyalty_points",
        "Balance of loyalty points a customer has accumulated.",
        [("customer_id", "Customer id")],
    ),
    (
        "apply_coupon",
        "Apply a discount coupon code to a shopping cart.",
        [("cart_id", "Cart id"), ("code", "Coupon code")],
    ),
    (
        "stock_quote",
        "Latest stock market quote of a listed company by ticker symbol.",
        [("ticker", "Ticker symbol")],
    ),
    (
        "crypto_price",
        "Current price of a cryptocurrency such as bitcoin or ether.",
        [("symbol", "Coin symbol")],
    ),
    (
        "loan_simulator",
        "Simulate monthly installments of a loan given amount, interest rate and term.",
        [
            ("principal", "Amount borrowed"),
            ("rate", "Annual interest rate"),
            ("months", "Term in months"),
        ],
    ),
    (
        "tax_calculator",
        "Estimate income tax due for a yearly salary.",
        [("salary", "Yearly salary")],
    ),
    ("invoice_generate", "Generate a PDF invoice for a sale.", [("order_id", "Order number")]),
    ("bank_balance", "Balance of the user's bank account.", [("account", "Account number")]),
    ("pay_bill", "Pay a utility bill using its barcode.", [("barcode", "Bill barcode")]),
    (
        "flight_search",
        "Search flights between two airports on a date, with prices.",
        [
            ("origin", "Origin airport"),
            ("destination", "Destination airport"),
            ("date", "Travel date"),
        ],
    ),
    (
        "hotel_booking",
        "Book a hotel room in a city for check-in and check-out dates.",
        [("city", "City"), ("check_in", "Arrival"), ("check_out", "Departure")],
    ),
    (
        "car_rental",
        "Rent a car at a pickup location for some days.",
        [("location", "Pickup place"), ("days", "Rental days")],
    ),
    (
        "train_timetable",
        "Train departure times between two stations.",
        [("origin", "Station"), ("destination", "Station")],
    ),
    (
        "maps_directions",
        "Driving or walking directions and travel time between two addresses.",
        [("origin", "Start address"), ("destination", "End address")],
    ),
    (
        "nearby_places",
        "Find restaurants, pharmacies or other places near an address.",
        [("address", "Address"), ("kind", "Type of place")],
    ),
    (
        "geocode_address",
        "Convert a street address into latitude and longitude coordinates.",
        [("address", "Street address")],
    ),
    ("timezone_lookup", "Current local time and time zone of a city.", [("city", "City")]),
    (
        "holiday_calendar",
        "Public holidays of a country in a year.",
        [("country", "Country"), ("year", "Year")],
    ),
    ("news_headlines", "Latest news headlines on a topic.", [("topic", "Topic")]),
    (
        "wikipedia_summary",
        "Short encyclopedia summary of a person, place or concept.",
        [("title", "Article title")],
    ),
    ("dictionary_define", "Definition and synonyms of a word in a dictionary.", [("word", "Word")]),
    (
        "spell_check",
        "Check spelling and grammar of a text and suggest corrections.",
        [("text", "Text")],
    ),
    (
        "summarize_text",
        "Summarize a long text in a few sentences.",
        [("text", "Text to summarize")],
    ),
    (
        "sentiment_analysis",
        "Classify the sentiment of a review as positive, negative or neutral.",
        [("text", "Review text")],
    ),
    (
        "extract_entities",
        "Extract names of people, organizations and places from text.",
        [("text", "Text")],
    ),
    (
        "ocr_image",
        "Read the printed text in an image file (optical character recognition).",
        [("path", "Image file")],
    ),
    (
        "resize_image",
        "Resize an image to a given width and height.",
        [("path", "Image file"), ("width", "Pixels"), ("height", "Pixels")],
    ),
    (
        "generate_qr_code",
        "Generate a QR code image encoding a link or text.",
        [("data", "Content")],
    ),
    (
        "transcribe_audio",
        "Transcribe speech in an audio recording to text.",
        [("path", "Audio file")],
    ),
    (
        "text_to_speech",
        "Read text aloud, producing an audio file.",
        [("text", "Text"), ("voice", "Voice name")],
    ),
    (
        "sql_query",
        "Run a read-only SQL query on the analytics database.",
        [("sql", "SELECT statement")],
    ),
    (
        "spreadsheet_read",
        "Read cells of a spreadsheet range.",
        [("file", "Spreadsheet file"), ("range", "Cell range")],
    ),
    (
        "chart_plot",
        "Plot a bar or line chart from a table of numbers.",
        [("data", "Table"), ("kind", "Chart type")],
    ),
    (
        "statistics_describe",
        "Mean, median, standard deviation and quartiles of a list of numbers.",
        [("values", "Numbers")],
    ),
    (
        "unit_convert",
        "Convert measurements between units: kilometers, miles, kilograms, pounds, Celsius, Fahrenheit.",
        [("value", "Number"), ("from_unit", "Unit"), ("to_unit", "Unit")],
    ),
    (
        "date_difference",
        "Number of days between two dates.",
        [("start", "First date"), ("end", "Second date")],
    ),
    (
        "random_number",
        "Draw a random integer between two bounds.",
        [("low", "Minimum"), ("high", "Maximum")],
    ),
    ("password_generate", "Generate a strong random password.", [("length", "Characters")]),
    ("hash_text", "Compute the SHA-256 hash of a text.", [("text", "Text")]),
    (
        "run_python",
        "Execute a Python snippet in a sandbox and return its output.",
        [("code", "Python code")],
    ),
    ("git_commit_log", "Recent commits of a git repository.", [("repo", "Repository")]),
    (
        "ci_build_status",
        "Status of the latest continuous-integration build of a project.",
        [("project", "Project")],
    ),
    (
        "deploy_service",
        "Deploy a service version to production servers.",
        [("service", "Service"), ("version", "Version")],
    ),
    ("server_metrics", "CPU, memory and disk usage of a server.", [("host", "Host name")]),
    ("restart_server", "Restart a server or virtual machine.", [("host", "Host name")]),
    ("dns_lookup", "Resolve the DNS records of a domain name.", [("domain", "Domain")]),
    (
        "whois_domain",
        "Registration owner and expiry date of a domain name.",
        [("domain", "Domain")],
    ),
    (
        "legal_search",
        "Search laws, decrees and court decisions by keywords.",
        [("query", "Keywords")],
    ),
    (
        "case_status",
        "Status and last movements of a court case by its number.",
        [("case_number", "Case number")],
    ),
    (
        "company_registry",
        "Company registration data by tax id: name, partners, address.",
        [("tax_id", "Company tax id")],
    ),
    (
        "zip_code_lookup",
        "Street, neighbourhood and city of a postal code.",
        [("zip_code", "Postal code")],
    ),
    (
        "vehicle_fines",
        "Traffic fines registered for a vehicle licence plate.",
        [("plate", "Licence plate")],
    ),
    (
        "doctor_appointment",
        "Schedule a medical appointment with a specialist.",
        [("specialty", "Medical specialty"), ("date", "Date")],
    ),
    (
        "drug_interactions",
        "Check interactions between two medicines.",
        [("drug_a", "Medicine"), ("drug_b", "Medicine")],
    ),
    (
        "nutrition_facts",
        "Calories, protein, fat and carbohydrates of a food portion.",
        [("food", "Food"), ("grams", "Portion")],
    ),
    (
        "recipe_search",
        "Find cooking recipes with given ingredients.",
        [("ingredients", "Ingredients")],
    ),
    (
        "movie_showtimes",
        "Cinema session times for a movie in a city.",
        [("movie", "Movie"), ("city", "City")],
    ),
    ("music_play", "Play a song or playlist on the speaker.", [("song", "Song or playlist")]),
    ("sports_scores", "Latest football and basketball results of a team.", [("team", "Team")]),
    (
        "smart_home_lights",
        "Turn the house lights on or off or dim them in a room.",
        [("room", "Room"), ("state", "on/off/dim")],
    ),
    (
        "thermostat_set",
        "Set the air conditioning or heating temperature.",
        [("celsius", "Temperature")],
    ),
    (
        "reminder_create",
        "Create a reminder notification at a time.",
        [("text", "What to remember"), ("when", "Time")],
    ),
    ("todo_add", "Add a task to the to-do list.", [("task", "Task")]),
    (
        "contacts_search",
        "Find a phone number or e-mail in the address book.",
        [("name", "Person name")],
    ),
]


def catalog_tools() -> list[Tool]:
    tools: list[Tool] = []
    for name, description, params in CATALOG:
        fields: dict[str, Any] = {p: (str, Field(description=d)) for p, d in params}
        model = create_model(f"{name}_args", __config__=ConfigDict(extra="forbid"), **fields)

        def run(_name: str = name, **kwargs: Any) -> str:
            return f"{_name} called with {kwargs}"

        tools.append(Tool(name=name, description=description, func=run, args_model=model))
    return tools
