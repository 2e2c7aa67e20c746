"""Write one seed's forum into a blank Spirit database through Spirit's own models.

Run by webgauge in the forum's own virtualenv: ``python seed_script.py SITE_DIR WORLD.json``
(``WG_SPIRIT_DATA`` names the scratch data folder). Members, categories, topics, comments (their
HTML rendered by Spirit's own Markdown renderer), likes, favourites and subscriptions are written
with the Django ORM's bulk paths; the search index is built with Haystack's ``rebuild_index``, as
Spirit's documentation says to. Phases and their times go to stderr.
"""

import datetime as dt
import json
import sys
import time

sys.path.insert(0, sys.argv[1])

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.auth.hashers import make_password  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import transaction  # noqa: E402
from django.utils.text import slugify  # noqa: E402
from spirit.admin.forms import BasicConfigForm  # noqa: E402
from spirit.category.models import Category  # noqa: E402
from spirit.comment.like.models import CommentLike  # noqa: E402
from spirit.comment.models import Comment  # noqa: E402
from spirit.core.utils.markdown import Markdown  # noqa: E402
from spirit.topic.favorite.models import TopicFavorite  # noqa: E402
from spirit.topic.models import Topic  # noqa: E402
from spirit.topic.notification.models import TopicNotification  # noqa: E402
from spirit.user.models import UserProfile  # noqa: E402

T0 = time.perf_counter()
COLOURS = ("#2f7d5b", "#9b4f1f", "#3a5fa0", "#7a3f8c", "#a07d1c", "#4a7f8c", "#b04848", "#5c6b2f", "#2f4f6f",
           "#8c5a3a", "#6a4fa0", "#3f7f3f")


def say(msg):
    print(f"[{time.perf_counter() - T0:6.1f} s] {msg}", file=sys.stderr, flush=True)


def main():
    w = json.load(open(sys.argv[2], encoding="utf-8"))
    epoch = dt.datetime.fromisoformat(w["epoch"])

    def at(minute):
        return epoch + dt.timedelta(minutes=minute)

    User = get_user_model()
    form = BasicConfigForm(data={"site_name": "Trailhead Commons",
                                 "site_description": "Gear, repairs and weekend projects",
                                 "template_footer": "", "comments_per_page": 20, "topics_per_page": 20})
    assert form.is_valid(), form.errors
    form.save()
    with transaction.atomic():
        hashes = {}
        users = []
        for m in w["members"]:
            if m["password"] not in hashes:
                hashes[m["password"]] = make_password(m["password"])
            first, _, last = m["nickname"].partition(" ")
            users.append(User(username=m["username"], email=m["email"], first_name=first, last_name=last,
                              password=hashes[m["password"]], is_active=True, date_joined=epoch))
        User.objects.bulk_create(users, batch_size=500)
        by_name = {u.username: u for u in User.objects.all()}
        say(f"{len(users)} members")
        topics_of, comments_of = {}, {}
        for t in w["topics"]:
            topics_of[t["comments"][0]["author"]] = topics_of.get(t["comments"][0]["author"], 0) + 1
            for c in t["comments"]:
                comments_of[c["author"]] = comments_of.get(c["author"], 0) + 1
        UserProfile.objects.bulk_create([
            UserProfile(user=by_name[m["username"]], nickname=m["nickname"], location=m["location"],
                        is_moderator=m["is_moderator"], is_verified=True, topic_count=topics_of.get(m["username"], 0),
                        comment_count=comments_of.get(m["username"], 0), last_seen=epoch)
            for m in w["members"]], batch_size=500)
        Category.objects.filter(title="Uncategorized").update(is_removed=True)
        cats = []
        for k, c in enumerate(w["categories"]):
            cats.append(Category.objects.create(title=c["title"], slug=slugify(c["title"]),
                                                description=c["description"], color=COLOURS[k % len(COLOURS)],
                                                sort=k + 1))
        say(f"{len(cats)} categories")
        rows = []
        for t in w["topics"]:
            cs = t["comments"]
            rows.append(Topic(user=by_name[cs[0]["author"]], category=cats[t["category"]], title=t["title"],
                              slug=slugify(t["title"])[:50], date=at(cs[0]["minute"]),
                              last_active=at(cs[-1]["minute"]), reindex_at=at(cs[-1]["minute"]),
                              is_pinned=t["is_pinned"], is_closed=t["is_closed"], comment_count=len(cs),
                              view_count=7 * len(cs) + len(t["title"]) % 13))
        Topic.objects.bulk_create(rows, batch_size=500)
        topics = list(Topic.objects.order_by("id"))
        say(f"{len(topics)} topics")
        md = Markdown()
        crow = []
        for topic, t in zip(topics, w["topics"], strict=True):
            for c in t["comments"]:
                crow.append(Comment(user=by_name[c["author"]], topic=topic, comment=c["body"],
                                    comment_html=md.render(c["body"]), date=at(c["minute"]),
                                    likes_count=len(c["likers"]), ip_address="127.0.0.1"))
        Comment.objects.bulk_create(crow, batch_size=1000)
        comments = list(Comment.objects.order_by("id"))
        say(f"{len(comments)} comments")
        likes, k = [], 0
        for t in w["topics"]:
            for c in t["comments"]:
                for u in c["likers"]:
                    likes.append(CommentLike(user=by_name[u], comment=comments[k], date=at(c["minute"] + 30)))
                k += 1
        CommentLike.objects.bulk_create(likes, batch_size=2000)
        notes, favs, k = [], [], 0
        for topic, t in zip(topics, w["topics"], strict=True):
            last = comments[k + len(t["comments"]) - 1]
            k += len(t["comments"])
            for u in t["subscribers"]:
                notes.append(TopicNotification(user=by_name[u], topic=topic, comment=last, date=last.date,
                                               action=TopicNotification.COMMENT if hasattr(TopicNotification, "COMMENT")
                                               else 1, is_read=True, is_active=True))
            for u in t["favorites"]:
                favs.append(TopicFavorite(user=by_name[u], topic=topic, date=last.date))
        TopicNotification.objects.bulk_create(notes, batch_size=2000)
        TopicFavorite.objects.bulk_create(favs, batch_size=2000)
        say(f"{len(likes)} likes, {len(notes)} subscriptions, {len(favs)} favourites")
    call_command("rebuild_index", interactive=False, verbosity=0)
    say("search index built")


if __name__ == "__main__":
    main()
